import { loadBenchmark } from "@loclab/datasets";
import { extractGold } from "@loclab/gold";
import { stampRecord } from "@loclab/schemas";
import { type Command, Option } from "commander";
import { progress } from "../progress.js";
import { printTable } from "../table.js";

interface GoldCommandOptions {
  benchmark: string;
  json?: boolean;
  full?: boolean;
  dataDir?: string;
  skipBadLines?: boolean;
}

/**
 * `loclab gold --benchmark lite --json`: gold locations of every instance (docs/definitions.md §2),
 * one JSON object per line (instance id, gold files, created files, spans). A patch that
 * cannot be read is reported on stderr with its instance and line; the other instances are
 * still printed, and the exit code is 1.
 */
export function registerGoldCommand(program: Command): void {
  program
    .command("gold")
    .description("print the gold locations (files, created files, line spans) of a benchmark's patches")
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .option("--json", "one JSON object per instance (JSON Lines) instead of a table")
    .option("--full", "with --json: also hunks, added lines and approximate symbols")
    .addOption(new Option("--data-dir <dir>", "the shared data folder (default: found beside the repository, or $LOCLAB_DATA_DIR)"))
    .option("--skip-bad-lines", "skip rows that do not parse (they are reported) instead of stopping")
    .action(async (options: GoldCommandOptions) => {
      const benchmark = await loadBenchmark(options.benchmark, {
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        onBadLine: options.skipBadLines ? "skip" : "stop",
      });
      for (const bad of benchmark.skipped) process.stderr.write(`loclab: skipped ${bad.message}\n`);
      const { golds, failures } = extractGold(benchmark.instances);
      if (options.json) {
        for (const gold of golds) {
          const record = options.full
            ? gold
            : { instanceId: gold.instanceId, files: gold.files, created: gold.created, spans: gold.spans };
          process.stdout.write(`${JSON.stringify(stampRecord(record))}\n`);
        }
      } else {
        printTable(
          golds.map((gold) => ({
            instance: gold.instanceId,
            goldFiles: gold.files.length,
            created: gold.created.length,
            spans: gold.spans.map((span) => `${span.startLine}-${span.endLine}`).join(" "),
            firstFile: gold.files[0] ?? "",
          })),
        );
      }
      progress(`${benchmark.name}: ${golds.length} instances, ${failures.length} failed, ${benchmark.skipped.length} rows skipped`);
      for (const failure of failures) process.stderr.write(`loclab: gold failed: ${failure.message}\n`);
      if (failures.length > 0) process.exitCode = 1;
    });
}
