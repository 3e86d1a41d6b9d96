import { mkdir } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { BENCHMARKS, type BenchmarkName, isBenchmarkName } from "@loclab/datasets";
import type { Command } from "commander";
import { fileURLToPath } from "node:url";
import {
  goldStage,
  leaderboardStage,
  localizerDemoStage,
  realModelStage,
  significanceStage,
  type StageResult,
  trajectoriesStage,
} from "@loclab/reproduce";
import { summaryOf } from "../command-summaries.js";
import { progress } from "../progress.js";
import { provenanceNow } from "../provenance.js";
import { printTable } from "../table.js";

interface ReproduceOptions {
  out: string;
  benchmarks: string;
  dataDir?: string;
}

/**
 * `loclab reproduce`: the main job on the bundled data, stage by stage, each writing its
 * tables and charts to `results/`: (1) benchmarks and gold locations (docs/definitions.md §2);
 * (2) the localization leaderboard of the bundled peer outputs (docs/definitions.md §3); (3) how far
 * apart SWE-bench leaderboard entries are (docs/definitions.md §7); (4) the failure breakdown of the
 * real agent runs (docs/definitions.md §8); (5) the localizer end to end on a fixture repository with
 * the scripted model server (docs/definitions.md §1).
 */
export function registerReproduceCommand(program: Command): void {
  program
    .command("reproduce")
    .description(summaryOf("reproduce"))
    .option("-o, --out <dir>", "output folder", "results")
    .option("--benchmarks <names>", "comma-separated benchmarks for the gold stage", Object.keys(BENCHMARKS).join(","))
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: ReproduceOptions) => {
      const started = performance.now();
      const names = options.benchmarks.split(",").map((name) => name.trim());
      const unknown = names.filter((name) => !isBenchmarkName(name));
      if (unknown.length > 0)
        throw new Error(
          `unknown benchmark(s) ${unknown.join(", ")}; expected some of ${Object.keys(BENCHMARKS).join(", ")}`,
        );
      const out = resolve(options.out);
      await mkdir(out, { recursive: true });
      const stage = {
        out,
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        provenance: provenanceNow,
        progress,
      };
      const show = <T extends StageResult>(result: T): T => {
        printTable(result.rows);
        if (result.footer) process.stdout.write(`${result.footer}\n`);
        return result;
      };

      process.stdout.write("== benchmarks and gold locations\n");
      const gold = show(await goldStage({ ...stage, benchmarks: names as BenchmarkName[] }));
      process.stdout.write("\n== localization leaderboard (unified vs. each peer's own preset)\n");
      const leaderboard = show(await leaderboardStage(stage));
      process.stdout.write("\n== leaderboard significance (exact McNemar, Holm, power)\n");
      const significance = show(await significanceStage(stage));
      process.stdout.write("\n== failure breakdown of the four real agent runs (41 common tasks)\n");
      const trajectories = show(await trajectoriesStage(stage));
      process.stdout.write("\n== localizer demo (fixture repository, scripted model server over HTTP, scored)\n");
      const demo = show(await localizerDemoStage({ out }));
      process.stdout.write(
        "\n== a real model (loclab serve on SmolLM2-135M-Instruct, CPU): the calc fixture, 2 seeds × 2 temperatures, scored and broken down\n",
      );
      // `loclab serve` in a process of its own: this CLI's own entry point.
      const bin = fileURLToPath(new URL("../bin.js", import.meta.url));
      const real = show(await realModelStage({ out, serveCommand: [process.execPath, bin] }));

      const written = [
        ...gold.written,
        ...leaderboard.written,
        ...significance.written,
        ...trajectories.written,
        ...demo.written,
        ...real.written,
      ];
      process.stdout.write(`\nwrote ${written.map((path) => relative(process.cwd(), path)).join(", ")}\n`);
      process.stdout.write(`reproduce finished in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      if (gold.failures > 0) process.exitCode = 1;
    });
}
