import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type PredictionTargets, scoreLocalization, scoreSherloc } from "@loclab/metrics";
import { sherlocGoldLocations } from "@loclab/gold";
import { readPredictions } from "@loclab/predictions";
import { cellLabel, type Control, controlLabel } from "@loclab/schemas";
import { buildGold, loadPreset } from "@loclab/scoring";
import { exactMcNemar, pairedBootstrap } from "@loclab/statistics";
import { sampleStandardDeviation } from "simple-statistics";
import { toCsv } from "./csv.js";
import { parseRunSpec } from "./load-run-spec.js";
import { runLayout } from "./run-layout.js";
import { readRunManifest } from "./run-manifest.js";
import { planRun } from "./run-plan.js";
import { attemptsByCell, type CellAttempts } from "./attempt-tables.js";
import { keyHistories, readLedger } from "./ledger.js";

/** The metrics a run's tables show by default (docs/definitions.md §3, unified preset). */
export const RUN_TABLE_METRICS = [
  "file.acc@1",
  "file.acc@5",
  "file.recall@5",
  "module.acc@5",
  "function.acc@5",
  "span.coverageRecall",
  "span.precision",
] as const;

/**
 * SHERLOC's own figures, scored on every run beside the unified metrics (the `sherloc`
 * preset, docs/definitions.md §3), so that a run's table can be held against SHERLOC's
 * published 84.33 % / 81.27 % / 41.28 % / 53.47 %.
 */
export const SHERLOC_TABLE_METRICS = [
  "sherloc.file_recall",
  "sherloc.file_precision",
  "sherloc.chunk_coverage_recall",
  "sherloc.chunk_precision",
  "sherloc.chunk_avg_tightness",
] as const;

export interface ScoreRunOptions {
  /** Metrics of the tables; default `RUN_TABLE_METRICS` (those the gold has). */
  metrics?: readonly string[];
  /** The binary metric of the paired tests (McNemar); default `file.acc@1`. */
  pairedMetric?: string;
  /** Paired bootstrap resamples and seed; default 2000 and 1. */
  resamples?: number;
  bootstrapSeed?: number;
  confidence?: number;
  /** Write results/ and export/ under the run folder (default true). */
  write?: boolean;
}

/** One cell's scores. */
export interface CellScore {
  cell: string;
  seed: number | null;
  control: string;
  /** Instances scored (gold not empty). */
  n: number;
  /** Instances of the run without a prediction in this cell (scored 0). */
  missingPredictions: number;
  metrics: Record<string, number>;
  /** Per metric, aligned with `RunScore.instanceIds` (NaN where excluded). */
  perInstance: Record<string, number[]>;
}

/** A control's metric across seeds: SHERLOC's "84.33 ± 0.72" (percent, sample standard deviation). */
export interface AcrossSeeds {
  control: string;
  metric: string;
  seeds: number;
  mean: number;
  /** Sample standard deviation (n − 1); null with one seed. */
  sd: number | null;
  values: number[];
  /** `84.33 ± 0.72` in percent (just the mean with one seed). */
  formatted: string;
}

/** A control against `plain` on the paired metric, for one seed or pooled over seeds. */
export interface ControlComparison {
  control: string;
  /** A seed, `null` (no seed sent), or `pooled` (every seed's pairs, the bootstrap clustered by instance). */
  seed: number | null | "pooled";
  metric: string;
  pairs: number;
  plain: number;
  other: number;
  /** other − plain. */
  difference: number;
  /** Pairs where only plain succeeded (b) and only the control did (c). */
  b: number;
  c: number;
  p: number;
  midP: number;
  lower: number;
  upper: number;
  confidence: number;
}

export interface RunScore {
  dir: string;
  benchmark: string;
  goldSource: string;
  instanceIds: string[];
  metrics: string[];
  cells: CellScore[];
  acrossSeeds: AcrossSeeds[];
  comparisons: ControlComparison[];
  /** Per cell: how the keys ended, and the leak audits of their prompts (from the ledger). */
  attempts: CellAttempts[];
  /** Files written, relative to the run folder. */
  written: string[];
}

const percent = (value: number) => (100 * value).toFixed(2);

/**
 * The results of a run (`loclab run score`): every cell scored with the unified metrics
 * (docs/definitions.md §3) over the run's instances (a missing prediction scores 0), and with
 * SHERLOC's evaluator (`SHERLOC_TABLE_METRICS`; a missing prediction is a failed generation); per
 * control, each metric's mean ± sample standard deviation across seeds; each control against
 * `plain` on `pairedMetric`, per seed and pooled: the paired difference, the exact McNemar p
 * and mid-p (docs/definitions.md §7), and a paired bootstrap interval (pooled: clustered by
 * instance, since one instance's seeds are not independent). Writes results/cells.csv,
 * results/per-instance.csv, results/across-seeds.csv, results/comparisons.csv and
 * results/score.json, and per cell export/<seed>-<control>.jsonl in LocAgent's
 * `loc_outputs` form (`instance_id`, `found_files`, `found_modules`, `found_entities`) for the
 * next tool. `attempts`: per cell, how the keys ended and the summed leak audits (from the ledger).
 */
export async function scoreRun(dir: string, options: ScoreRunOptions = {}): Promise<RunScore> {
  const manifest = await readRunManifest(dir);
  if (!manifest) throw new Error(`${dir}: no manifest.json: not a run folder`);
  const spec = parseRunSpec(manifest.spec, { source: runLayout.manifest(dir) });
  const plan = await planRun(spec);
  const instanceIds = plan.instances.map((instance) => instance.instance_id);
  const repoOf = new Map(plan.instances.map((instance) => [instance.instance_id, instance.repo]));
  const preset = loadPreset("unified", spec.dataDir ? { dataDir: spec.dataDir } : {});
  // The run's mirrors place the gold on the files the localizer read (spans at their real
  // lines, exact function gold); without them (the run folder moved), the patch-only gold.
  const built = await buildGold({
    preset,
    benchmark: plan.benchmarkName,
    instances: plan.instances,
    ...(spec.dataDir ? { dataDir: spec.dataDir } : {}),
    ...(existsSync(spec.repos) ? { repos: spec.repos } : {}),
  });
  const sherlocGold = new Map(
    plan.instances.map((instance) => [instance.instance_id, sherlocGoldLocations(instance.patch)]),
  );
  const pairedMetric = options.pairedMetric ?? "file.acc@1";
  const ledger = existsSync(runLayout.ledger(dir))
    ? await readLedger(runLayout.ledger(dir), { repair: false })
    : { records: [] };
  const attempts = attemptsByCell(plan.attempts, keyHistories(ledger.records));
  const cells: CellScore[] = [];
  const exports: { cell: string; rows: object[] }[] = [];
  for (const cell of plan.cells) {
    const label = cellLabel(cell);
    const file = runLayout.predictions(dir, label);
    const predictions = new Map<string, PredictionTargets>();
    if (existsSync(file)) {
      const read = await readPredictions(file, { format: "loclab", instanceIds, repoOf: (id) => repoOf.get(id) });
      for (const prediction of read.predictions) predictions.set(prediction.instanceId, prediction);
      exports.push({
        cell: label,
        rows: read.predictions.map((prediction) => ({
          instance_id: prediction.instanceId,
          model_name_or_path: spec.endpoints[0]?.model,
          found_files: prediction.files,
          found_modules: prediction.modules ?? [],
          found_entities: prediction.functions ?? [],
          found_spans: prediction.locations.map(({ path, startLine, endLine }) => ({ path, startLine, endLine })),
        })),
      });
    }
    const report = scoreLocalization({ instanceIds, gold: built.gold, predictions, preset });
    const sherloc = scoreSherloc({ instanceIds, gold: sherlocGold, predictions });
    const all = { ...report.metrics, ...sherloc.metrics };
    const metrics: Record<string, number> = {};
    const perInstance: Record<string, number[]> = {};
    for (const key of new Set([...(options.metrics ?? RUN_TABLE_METRICS), pairedMetric, ...SHERLOC_TABLE_METRICS])) {
      const value = all[key];
      if (!value || value.n === 0) continue;
      metrics[key] = value.value;
      if (value.perInstance) perInstance[key] = [...value.perInstance];
    }
    cells.push({
      cell: label,
      seed: cell.seed,
      control: controlLabel(cell.control),
      n: report.n,
      missingPredictions: report.missingPredictions,
      metrics,
      perInstance,
    });
  }
  const metricKeys = [...new Set(cells.flatMap((cell) => Object.keys(cell.metrics)))];
  const controls = [...new Set(plan.cells.map((cell) => controlLabel(cell.control as Control)))];

  const acrossSeeds: AcrossSeeds[] = [];
  for (const control of controls) {
    for (const metric of metricKeys) {
      const values = cells
        .filter((cell) => cell.control === control && metric in cell.metrics)
        .map((cell) => cell.metrics[metric] as number);
      if (values.length === 0) continue;
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
      const sd = values.length > 1 ? sampleStandardDeviation(values) : null;
      acrossSeeds.push({
        control,
        metric,
        seeds: values.length,
        mean,
        sd,
        values,
        formatted: sd === null ? percent(mean) : `${percent(mean)} ± ${percent(sd)}`,
      });
    }
  }

  const comparisons: ControlComparison[] = [];
  const resamples = options.resamples ?? 2000;
  const bootstrapSeed = options.bootstrapSeed ?? 1;
  const confidence = options.confidence ?? 0.95;
  const compare = (
    control: string,
    seed: ControlComparison["seed"],
    pairs: { a: number[]; b: number[]; clusters?: string[] },
  ) => {
    const ok = pairs.a.map((_, i) => Number.isFinite(pairs.a[i]) && Number.isFinite(pairs.b[i]));
    const a = pairs.a.filter((_, i) => ok[i]);
    const other = pairs.b.filter((_, i) => ok[i]);
    if (a.length === 0) return;
    let b = 0;
    let c = 0;
    a.forEach((plain, i) => {
      if (plain === 1 && other[i] === 0) b += 1;
      if (plain === 0 && other[i] === 1) c += 1;
    });
    const binary = [...a, ...other].every((value) => value === 0 || value === 1);
    const test = binary ? exactMcNemar({ b, c }) : { p: Number.NaN, midP: Number.NaN };
    const clusters = pairs.clusters?.filter((_, i) => ok[i]);
    const boot = pairedBootstrap({
      a: other,
      b: a,
      resamples,
      seed: bootstrapSeed,
      confidence,
      ...(clusters ? { clusters } : {}),
    });
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    comparisons.push({
      control,
      seed,
      metric: pairedMetric,
      pairs: a.length,
      plain: mean(a),
      other: mean(other),
      difference: boot.estimate,
      b,
      c,
      p: test.p,
      midP: test.midP,
      lower: boot.lower,
      upper: boot.upper,
      confidence,
    });
  };
  for (const control of controls.filter((label) => label !== "plain")) {
    const pooled = { a: [] as number[], b: [] as number[], clusters: [] as string[] };
    for (const seed of spec.seeds ?? [null]) {
      const plainCell = cells.find((cell) => cell.control === "plain" && cell.seed === seed);
      const otherCell = cells.find((cell) => cell.control === control && cell.seed === seed);
      const a = plainCell?.perInstance[pairedMetric];
      const b = otherCell?.perInstance[pairedMetric];
      if (!a || !b) continue;
      compare(control, seed, { a, b });
      pooled.a.push(...a);
      pooled.b.push(...b);
      pooled.clusters.push(...instanceIds);
    }
    if ((spec.seeds?.length ?? 1) > 1 && pooled.a.length > 0) compare(control, "pooled", pooled);
  }

  const written: string[] = [];
  if (options.write ?? true) {
    const results = runLayout.results(dir);
    await mkdir(results, { recursive: true });
    const put = async (name: string, text: string) => {
      await writeFile(join(results, name), text, "utf8");
      written.push(`results/${name}`);
    };
    await put(
      "cells.csv",
      toCsv(
        cells.map((cell) => ({
          cell: cell.cell,
          seed: cell.seed ?? "",
          control: cell.control,
          n: cell.n,
          missing_predictions: cell.missingPredictions,
          ...cell.metrics,
        })),
      ),
    );
    await put(
      "per-instance.csv",
      toCsv(
        cells.flatMap((cell) =>
          instanceIds.map((id, i) => ({
            cell: cell.cell,
            seed: cell.seed ?? "",
            control: cell.control,
            instance_id: id,
            ...Object.fromEntries(Object.entries(cell.perInstance).map(([key, values]) => [key, values[i]])),
          })),
        ),
      ),
    );
    await put(
      "across-seeds.csv",
      toCsv(acrossSeeds.map(({ values, ...row }) => ({ ...row, sd: row.sd ?? "", values: values.join(" ") }))),
    );
    await put("comparisons.csv", toCsv(comparisons.map((row) => ({ ...row, seed: row.seed ?? "" }))));
    const score = {
      dir,
      benchmark: plan.benchmarkName,
      goldSource: built.source,
      instanceIds,
      metrics: metricKeys,
      cells,
      acrossSeeds,
      comparisons,
      attempts,
    };
    await put(
      "score.json",
      `${JSON.stringify(score, (_key, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`,
    );
    const exportDir = runLayout.export(dir);
    await mkdir(exportDir, { recursive: true });
    for (const { cell, rows } of exports) {
      const name = `${cell.replace("/", "-")}.jsonl`;
      await writeFile(
        join(exportDir, name),
        rows.map((row) => JSON.stringify(row)).join("\n") + (rows.length ? "\n" : ""),
        "utf8",
      );
      written.push(`export/${name}`);
    }
  }
  return {
    dir,
    benchmark: plan.benchmarkName,
    goldSource: built.source,
    instanceIds,
    metrics: metricKeys,
    cells,
    acrossSeeds,
    comparisons,
    attempts,
    written,
  };
}
