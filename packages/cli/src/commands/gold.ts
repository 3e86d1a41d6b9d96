import { goldAtBaseCommit } from "@loclab/checkouts";
import { loadBenchmark } from "@loclab/datasets";
import { extractGold, type GoldLocations } from "@loclab/gold";
import { stampRecord } from "@loclab/schemas";
import { peerGoldAgreement } from "@loclab/scoring";
import { type Command, Option } from "commander";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

interface GoldCommandOptions {
  benchmark: string;
  json?: boolean;
  full?: boolean;
  dataDir?: string;
  skipBadLines?: boolean;
  repos?: string;
  agreement?: boolean;
}

/**
 * `loclab gold --benchmark lite --json`: gold locations of every instance (docs/definitions.md §2),
 * one JSON object per line (instance id, gold files, created files, spans). Without a checkout
 * the spans are the patch's `@@` numbers (`lines: "patch-header"`); with `--repos DIR` each
 * patch is placed on the files at base commit as `git apply` places it (`lines: "pre-image"`,
 * each span and hunk with its `offset`) and `symbols` / `modules` give the exact gold entities
 * (`path:Class.method.inner`, tree-sitter). `--agreement` compares those with LocAgent's and
 * CoSIL's function gold. A patch that cannot be read, or an instance that cannot be read at
 * base commit, is reported on stderr with its instance; the others are still printed, and the
 * exit code is 1.
 */
export function registerGoldCommand(program: Command): void {
  program
    .command("gold")
    .description(summaryOf("gold"))
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .option("--json", "one JSON object per instance (JSON Lines) instead of a table")
    .option("--full", "with --json: also hunks, added lines and approximate symbols")
    .option(
      "--repos <dir>",
      "folder of mirrors (<owner>__<name>[.git]): spans at the real lines of the files at base commit, exact symbols",
    )
    .option(
      "--agreement",
      "with --repos: compare the exact function gold with LocAgent's (lite) and CoSIL's (lite, verified)",
    )
    .addOption(
      new Option(
        "--data-dir <dir>",
        "the shared data folder (default: found beside the repository, or $LOCLAB_DATA_DIR)",
      ),
    )
    .option("--skip-bad-lines", "skip rows that do not parse (they are reported) instead of stopping")
    .action(async (options: GoldCommandOptions) => {
      if (options.agreement && !options.repos)
        throw new Error("gold --agreement compares the exact gold, which needs --repos DIR");
      const benchmark = await loadBenchmark(options.benchmark, {
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        onBadLine: options.skipBadLines ? "skip" : "stop",
      });
      for (const bad of benchmark.skipped) process.stderr.write(`loclab: skipped ${bad.message}\n`);
      const located = options.repos
        ? await goldAtBaseCommit({
            instances: benchmark.instances,
            mirrors: options.repos,
            onProgress: (done, total) => {
              progress(`gold at base commit: ${done}/${total} repositories`);
            },
          })
        : undefined;
      const { golds, failures } = located ?? extractGold(benchmark.instances);
      const unreadable = located?.unreadable ?? [];
      if (options.agreement) {
        await printAgreement(golds, benchmark.name, options);
      } else if (options.json) {
        for (const gold of golds) {
          const record = options.full
            ? gold
            : {
                instanceId: gold.instanceId,
                files: gold.files,
                created: gold.created,
                lines: gold.lines ?? "patch-header",
                spans: gold.spans,
                ...(gold.exact
                  ? { symbols: gold.exact.functions, modules: gold.exact.modules, moduleLevel: gold.exact.moduleLevel }
                  : {}),
                ...(gold.unplaced && gold.unplaced.length > 0 ? { unplaced: gold.unplaced } : {}),
              };
          process.stdout.write(`${JSON.stringify(stampRecord(record))}\n`);
        }
      } else {
        printTable(
          golds.map((gold) => ({
            instance: gold.instanceId,
            goldFiles: gold.files.length,
            created: gold.created.length,
            spans: gold.spans
              .map(
                (span) =>
                  `${span.startLine}-${span.endLine}${span.offset ? `(${span.offset > 0 ? "+" : ""}${span.offset})` : ""}`,
              )
              .join(" "),
            // With --repos every row has the column: empty where the instance had no checkout.
            ...(located ? { symbols: gold.exact ? gold.exact.functions.length : "" } : {}),
            firstFile: gold.files[0] ?? "",
          })),
        );
      }
      const moved = golds.filter((gold) => gold.spans.some((span) => span.offset));
      const offsets = golds.flatMap((gold) =>
        gold.spans.flatMap((span) => (span.offset ? [Math.abs(span.offset)] : [])),
      );
      progress(
        `${benchmark.name}: ${golds.length} instances, ${failures.length} failed, ${benchmark.skipped.length} rows skipped; ` +
          (located
            ? `spans at the real lines of the files at base commit: ${moved.length} instance(s) with ${offsets.length} span(s) moved (${offsets.length > 0 ? `${Math.min(...offsets)} to ${Math.max(...offsets)} lines` : "none"}), ` +
              `${golds.filter((gold) => (gold.unplaced ?? []).length > 0).length} with a file that does not apply`
            : "spans at the patch's @@ numbers (no checkout: pass --repos DIR for the real lines and exact symbols)"),
      );
      for (const gold of golds)
        for (const file of gold.unplaced ?? [])
          process.stderr.write(
            `loclab: ${gold.instanceId}: ${file.path}: ${file.reason} (its spans keep the @@ numbers)\n`,
          );
      for (const entry of unreadable)
        process.stderr.write(`loclab: no checkout (patch-only gold printed): ${entry.message}\n`);
      for (const failure of failures) process.stderr.write(`loclab: gold failed: ${failure.message}\n`);
      if (failures.length > 0 || unreadable.length > 0) process.exitCode = 1;
    });
}

/** The agreement table of the exact function gold with the peers' golds that cover the benchmark. */
async function printAgreement(
  golds: readonly GoldLocations[],
  benchmarkName: string,
  options: GoldCommandOptions,
): Promise<void> {
  const peers = await peerGoldAgreement({
    golds,
    benchmark: benchmarkName,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify(stampRecord({ benchmark: benchmarkName, peers: peers.map(({ peer, agreement }) => ({ peer, ...agreement })) }))}\n`,
    );
    return;
  }
  printTable(
    peers.map(({ peer, agreement }) => ({
      peer,
      instances: agreement.instances,
      same: agreement.same,
      "same %": ((100 * agreement.same) / Math.max(agreement.instances, 1)).toFixed(1),
      ...Object.fromEntries(Object.entries(agreement.instancesByKind).map(([kind, count]) => [kind, count])),
    })),
  );
  process.stdout.write("(columns after same %: instances with at least one difference of that kind)\n");
}
