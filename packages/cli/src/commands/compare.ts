import { PREDICTION_FORMATS, type PredictionFormat } from "@loclab/predictions";
import { readTextFile } from "@loclab/schemas";
import { compareScoreReports, scorePredictionsFile } from "@loclab/scoring";
import { compareSystems, parseResolvedMatrix } from "@loclab/statistics";
import type { Command } from "commander";
import { progress } from "../progress.js";
import { fixed, printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

interface CompareOptions {
  resolved?: string;
  predictions?: string[];
  benchmark?: string;
  format?: string[];
  preset: string;
  metric?: string;
  holm?: boolean;
  json?: boolean;
  dataDir?: string;
}

/**
 * `loclab compare --predictions A --predictions B --benchmark X`: two localization runs on the
 * same benchmark under one preset, compared per instance: for every 0/1 metric (hit@k, acc@k at
 * each level) the paired table and the exact McNemar p (`compareScoreReports`). `--format` is
 * given once for both files or once per file.
 */
async function comparePredictions(options: CompareOptions): Promise<void> {
  const files = options.predictions ?? [];
  if (files.length !== 2) throw new Error(`--predictions: give exactly two files (A and B), got ${files.length}`);
  if (!options.benchmark) throw new Error("--benchmark is required with --predictions");
  const given = options.format ?? ["loclab"];
  const unknown = given.find((format) => !(PREDICTION_FORMATS as readonly string[]).includes(format));
  if (unknown !== undefined)
    throw new Error(`--format: ${JSON.stringify(unknown)} is not one of ${PREDICTION_FORMATS.join(", ")}`);
  const formats = given.length === 1 ? [given[0], given[0]] : given;
  if (formats.length !== 2)
    throw new Error(`--format: give one format for both files, or one per file; got ${given.length}`);
  const [a, b] = await Promise.all(
    files.map((predictions, i) =>
      scorePredictionsFile({
        benchmark: options.benchmark as string,
        predictions,
        format: formats[i] as PredictionFormat,
        preset: options.preset,
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      }),
    ),
  );
  for (const [label, result] of [
    ["A", a],
    ["B", b],
  ] as const) {
    progress(
      `${label} = ${result?.predictionsFile}: ${result?.read.records} predictions; ${result?.read.unknownInstanceIds.length} for ids not in ${result?.benchmark}; ${result?.report.missingPredictions} instances without a prediction (scored 0)`,
    );
  }
  let rows = compareScoreReports(a!.report, b!.report);
  if (options.metric) {
    const wanted = options.metric.split(",").map((key) => key.trim());
    const unknown = wanted.filter((key) => !rows.some((row) => row.key === key));
    if (unknown.length > 0)
      throw new Error(
        `--metric: not a 0/1 metric of this preset: ${unknown.join(", ")} (choose from ${rows.map((row) => row.key).join(", ")})`,
      );
    rows = rows.filter((row) => wanted.includes(row.key));
  }
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ benchmark: a!.benchmark, preset: a!.report.preset, a: files[0], b: files[1], metrics: rows })}\n`,
    );
    return;
  }
  process.stdout.write(
    `A = ${files[0]}\nB = ${files[1]}\npreset ${a!.report.preset} on ${a!.benchmark}; exact McNemar per metric on the instances both runs score\n`,
  );
  printTable(
    rows.map((row) => ({
      metric: row.key,
      n: row.n,
      A: fixed(row.meanA, 4),
      B: fixed(row.meanB, 4),
      "A only": row.aOnly,
      "B only": row.bOnly,
      p: row.p.toPrecision(4),
    })),
  );
}

/**
 * `loclab compare --resolved FILE.csv [--holm]`: every system of a resolved matrix (first
 * column instance_id, one 0/1 column per system) with its resolve rate, Wilson interval and
 * clustered SE, and every pair with the exact McNemar p (Holm-adjusted with `--holm`; `pHolm`
 * is null without it). The file is parsed whole before anything is computed: a bad cell
 * names its line and column and nothing is printed.
 */
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description(summaryOf("compare"))
    .option("--resolved <file>", "CSV: instance_id, then one 0/1 column per system")
    .option(
      "--predictions <file>",
      "a localization run's predictions (give it twice: A, then B)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("-b, --benchmark <name|path>", "with --predictions: the benchmark both runs were made on")
    .option(
      "-f, --format <format>",
      `with --predictions: the files' format, once for both or once per file (${PREDICTION_FORMATS.join(", ")}; default loclab)`,
      collect,
    )
    .option("--preset <preset>", "with --predictions: the scoring rules", "unified")
    .option("--metric <keys>", "with --predictions: only these metrics (comma-separated, e.g. file.acc@1,file.hit@5)")
    .option("--holm", "with --resolved: Holm-adjust the p-values over all pairs")
    .option("--json", "print one JSON object")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: CompareOptions) => {
      if (options.predictions !== undefined || options.resolved === undefined) {
        if (options.resolved !== undefined) throw new Error("give --resolved or --predictions, not both");
        if (options.predictions === undefined)
          throw new Error("give --resolved FILE (a resolved matrix) or --predictions A --predictions B --benchmark X");
        await comparePredictions(options);
        return;
      }
      const text = await readTextFile(options.resolved);
      const matrix = parseResolvedMatrix(text, { source: options.resolved });
      if (matrix.instanceIds.length === 0)
        throw new Error(`${options.resolved}: a header and no rows: no task to compare the systems on`);
      const comparison = compareSystems(matrix, { holm: options.holm ?? false });
      const pairs = comparison.pairs.map((pair) => ({ ...pair, pHolm: options.holm ? pair.pHolm : null }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ systems: comparison.systems, pairs })}\n`);
        return;
      }
      printTable(
        [...comparison.systems]
          .sort((a, b) => b.rate - a.rate)
          .map((s) => ({
            system: s.name,
            resolved: s.resolved,
            n: s.n,
            rate: fixed(s.rate, 4),
            wilson95: `${s.wilson[0].toFixed(3)}–${s.wilson[1].toFixed(3)}`,
            clusteredSE: s.clusteredSE === null ? "– (one repository)" : s.clusteredSE.toFixed(4),
          })),
      );
      const significant = pairs.filter((pair) => (options.holm ? (pair.pHolm ?? 1) : pair.p) < 0.05).length;
      process.stdout.write(
        `${pairs.length} pairs; ${significant} significant at 0.05${options.holm ? " after Holm" : " (unadjusted; --holm adjusts)"}\n`,
      );
    });
}
