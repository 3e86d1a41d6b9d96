import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { RUN_FORMATS } from "@loclab/analysis";
import type { Command } from "commander";
import { summaryOf } from "../command-summaries.js";
import { numericOption } from "../numeric-option.js";
import { progress } from "../progress.js";

/** What a site is made from: a run folder, the formats the analysis package reads, or FGL scores. */
const FORMATS = ["run", ...RUN_FORMATS, "fgl-scores"] as const;
type SiteFormat = (typeof FORMATS)[number];

function checkFormat(value: string): SiteFormat {
  if (!(FORMATS as readonly string[]).includes(value))
    throw new Error(`--format ${value}: not one of ${FORMATS.join(", ")}`);
  return value as SiteFormat;
}

function checkFolder(dir: string): string {
  const absolute = resolve(dir);
  if (!existsSync(absolute)) throw new Error(`${dir}: no such file or folder`);
  return absolute;
}

/**
 * `loclab report DIR --out SITE` and `loclab view DIR [--port]` (docs/guide/viewer.md): a
 * static site of a run folder, or of a folder of imported trajectories, written to disk
 * (opens from disk, no server) or served on 127.0.0.1 while a run goes on.
 */
export function registerReportCommands(program: Command): void {
  program
    .command("report")
    .description(summaryOf("report"))
    .argument(
      "<dir>",
      "a loclab run folder, a folder of trajectories (with --format), or a scores file (--format fgl-scores)",
    )
    .requiredOption("--out <site>", "the site's folder (index.html opens from disk)")
    .option("--format <format>", `what DIR holds: ${FORMATS.join(", ")}`, "run")
    .option("--concurrency <n>", "trajectories made at once", "4")
    .action(async (dir: string, options: { out: string; format: string; concurrency: string }) => {
      const { siteOfFolder, writeSite } = await import("@loclab/viewer");
      const folder = checkFolder(dir);
      const concurrency = numericOption("--concurrency", options.concurrency, { integer: true, min: 1 });
      const started = performance.now();
      const site = siteOfFolder(folder, { format: checkFormat(options.format) });
      progress(`report: reading ${dir}`);
      const source = await site.build(0);
      progress(
        `report: ${source.summary.rows.t?.length ?? 0} rows, ${source.summary.cells.length} cells; writing ${source.trajectories.length} trajectories`,
      );
      let last = 0;
      const result = await writeSite(source, resolve(options.out), {
        concurrency,
        onProgress: (done, total) => {
          if (done === total || performance.now() - last > 2000) {
            last = performance.now();
            progress(`report: ${done}/${total} trajectories`);
          }
        },
      });
      for (const problem of source.summary.problems.slice(0, 20)) progress(`report: problem: ${problem}`);
      if (source.summary.problems.length > 20)
        progress(`report: … ${source.summary.problems.length - 20} more problems (the site lists them all)`);
      process.stdout.write(
        `${resolve(options.out, "index.html")}\n` +
          `${result.written} trajectory files written, ${result.kept} kept (newer than their source), ${result.failed} unreadable; ` +
          `summary ${(result.summaryBytes / 1024).toFixed(1)} KiB; ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
      );
    });

  program
    .command("view")
    .description(summaryOf("view"))
    .argument("<dir>", "a loclab run folder, or a folder of trajectories (with --format)")
    .option("--port <n>", "the port on 127.0.0.1 (0: a free one)", "0")
    .option("--format <format>", `what DIR holds: ${FORMATS.join(", ")}`, "run")
    .option("--poll-seconds <s>", "how often the run's ledger is looked at for new attempts", "1")
    .action(async (dir: string, options: { port: string; format: string; pollSeconds: string }) => {
      const { serveSite, siteOfFolder } = await import("@loclab/viewer");
      const folder = checkFolder(dir);
      const port = numericOption("--port", options.port, { integer: true, min: 0 });
      const pollMs = numericOption("--poll-seconds", options.pollSeconds, { min: 0.05 }) * 1000;
      const site = siteOfFolder(folder, { format: checkFormat(options.format) });
      const served = await serveSite({
        ...site,
        port,
        pollMs,
        onRebuild: (event) =>
          "error" in event
            ? progress(`view: the site could not be made again (the page keeps the last one): ${event.error.message}`)
            : progress(`view: revision ${event.revision}: ${event.rows} trajectories (${Math.round(event.ms)} ms)`),
      });
      process.stdout.write(`${served.url}\n`);
      progress("view: serving on 127.0.0.1 only; Ctrl-C to stop");
      await new Promise<void>((resolveStop) => {
        const stop = () => void served.close().then(resolveStop);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    });
}
