import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { stampRecord } from "@loclab/schemas";
import { PREDICTION_FORMATS, type PredictionFormat } from "@loclab/predictions";
import { SCORING_PRESETS, scorePredictionsFile } from "@loclab/scoring";
import { isSherlocReport } from "@loclab/metrics";
import { type Command, Option } from "commander";
import { progress } from "../progress.js";
import { fixed, printTable } from "../table.js";
import { numericOption } from "../numeric-option.js";
import { summaryOf } from "../command-summaries.js";

interface ScoreCommandOptions {
  benchmark: string;
  predictions: string;
  format: PredictionFormat;
  preset: string;
  k?: string;
  json?: boolean;
  dataDir?: string;
  allowPartial?: boolean;
  perInstance?: string;
  repos?: string;
}

/** Parses `--k 1,3,5,10` into positive integers, naming the bad item. */
export function parseKs(text: string): number[] {
  return text.split(",").map((item) => numericOption("k", item.trim(), { integer: true, min: 1 }));
}

/**
 * `loclab score`: one prediction file scored against a benchmark under a preset. `--json`
 * prints `{"preset", "n", "excluded", "metrics": {"file.acc@1": …}}` with unrounded
 * fractions; the reader's report (duplicates removed, unknown ids, …) goes to stderr.
 */
export function registerScoreCommand(program: Command): void {
  program
    .command("score")
    .description(summaryOf("score"))
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .requiredOption("-p, --predictions <file>", "the predictions file")
    .addOption(
      new Option("-f, --format <format>", "the predictions file's format")
        .choices([...PREDICTION_FORMATS])
        .makeOptionMandatory(),
    )
    .addOption(new Option("--preset <preset>", "the scoring rules").choices([...SCORING_PRESETS]).default("unified"))
    .option("--k <list>", "comma-separated k values, replacing the preset's (e.g. 1,3,5,10)")
    .option("--json", "print one JSON object")
    .option(
      "--per-instance <file>",
      "also write each instance's metric values as JSONL ({instanceId, metrics}; null where excluded), for paired tests",
    )
    .option(
      "--allow-partial",
      "exit 0 even when gold patches fail to parse or most predictions are for ids not in the benchmark",
    )
    .option("--data-dir <dir>", "the shared data folder")
    .option(
      "--repos <dir>",
      "folder of mirrors (<owner>__<name>[.git]): gold spans at the real lines of the files at base commit, exact function gold (unified preset)",
    )
    .action(async (options: ScoreCommandOptions) => {
      const result = await scorePredictionsFile({
        benchmark: options.benchmark,
        predictions: options.predictions,
        format: options.format,
        preset: options.preset,
        ...(options.k !== undefined ? { ks: parseKs(options.k) } : {}),
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        ...(options.repos ? { repos: options.repos } : {}),
      });
      const { report, read } = result;
      progress(
        `${read.records} predictions read; ${read.unknownInstanceIds.length} for ids not in ${result.benchmark} (ignored); ` +
          `${read.duplicateInstanceIds.length} repeated ids; ${read.duplicatesRemoved} repeated ranking entries removed; ` +
          `${report.missingPredictions} instances without a prediction (scored 0); gold: ${result.goldSource}`,
      );
      if (read.unknownInstanceIds.length > 0)
        progress(
          `unknown ids: ${read.unknownInstanceIds.slice(0, 10).join(", ")}${read.unknownInstanceIds.length > 10 ? ", …" : ""}`,
        );
      for (const failure of result.patchFailures) progress(`gold failed: ${failure.message}`);
      for (const failure of result.checkoutFailures) progress(`no checkout (patch-only gold): ${failure.message}`);
      const metrics = Object.fromEntries(Object.values(report.metrics).map((metric) => [metric.key, metric.value]));
      if (options.perInstance) {
        const keyed = Object.values(report.metrics).filter((metric) => metric.perInstance !== undefined);
        const lines = report.instanceIds.map((instanceId, i) =>
          JSON.stringify(
            stampRecord({
              instanceId,
              metrics: Object.fromEntries(
                keyed.map((metric) => [
                  metric.key,
                  Number.isNaN(metric.perInstance?.[i] as number) ? null : (metric.perInstance?.[i] as number),
                ]),
              ),
            }),
          ),
        );
        await mkdir(dirname(resolve(options.perInstance)), { recursive: true });
        await writeFile(options.perInstance, lines.length === 0 ? "" : `${lines.join("\n")}\n`);
        progress(`wrote ${lines.length} per-instance rows to ${options.perInstance}`);
      }
      if (options.json) {
        const sherloc = isSherlocReport(report) ? { sherloc: report.sherloc } : {};
        process.stdout.write(
          `${JSON.stringify({ preset: report.preset, benchmark: result.benchmark, n: report.n, excluded: report.excluded, metrics, ...sherloc })}\n`,
        );
      } else {
        process.stdout.write(
          `preset ${report.preset} on ${result.benchmark}: n = ${report.n}, excluded = ${report.excluded}\n`,
        );
        printTable(
          Object.values(report.metrics).map((metric) => ({
            metric: metric.key,
            value: fixed(metric.value, 4),
            n: metric.n,
            excluded: metric.excluded,
          })),
        );
        if (isSherlocReport(report)) {
          const own = report.sherloc;
          process.stdout.write(
            `SHERLOC's report (percent): file_recall ${fixed(own.file_recall, 2)}, file_precision ${fixed(own.file_precision, 2)}, file_f1 ${fixed(own.file_f1, 2)}, ` +
              `chunk_coverage_recall ${fixed(own.chunk_coverage_recall, 2)}, chunk_precision ${fixed(own.chunk_precision, 2)}, chunk_avg_tightness ${fixed(own.chunk_avg_tightness, 2)}; ` +
              `samples_with_gt ${own.samples_with_gt}, samples_no_gt ${own.samples_no_gt}, successful ${own.successful_samples} (SHERLOC counts skipped ones here too), failed ${own.failed_samples} (missing predictions included), skipped ${own.skipped_samples}\n`,
          );
        }
      }
      // The numbers are printed either way; the exit code says whether they can be trusted.
      if (options.allowPartial) return;
      if (read.records === 0)
        throw new Error(
          `score: ${options.predictions} holds no predictions, so every instance scored 0; pass --allow-partial to accept`,
        );
      if (result.checkoutFailures.length > 0)
        throw new Error(
          `score: ${result.checkoutFailures.length} instance(s) could not be read at base commit under ${options.repos}, so their gold keeps the patch's @@ numbers (see above; loclab mirrors check tells what is missing); pass --allow-partial to accept`,
        );
      if (result.patchFailures.length > 0)
        throw new Error(
          `score: ${result.patchFailures.length} gold patch(es) failed to parse, so those instances have no gold (see above); pass --allow-partial to accept`,
        );
      const known = read.records - read.unknownInstanceIds.length;
      if (read.records > 0 && read.unknownInstanceIds.length > known) {
        throw new Error(
          `score: ${read.unknownInstanceIds.length} of ${read.records} predictions are for ids not in ${result.benchmark}: is this the benchmark the predictions were made on? (pass --allow-partial to accept)`,
        );
      }
    });
}
