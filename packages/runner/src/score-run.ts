import { existsSync } from "node:fs";
import { type PredictionTargets, type Preset, scoreLocalization, scoreSherloc } from "@loclab/metrics";
import { sherlocGoldLocations } from "@loclab/gold";
import { readPredictions } from "@loclab/predictions";
import {
  type CellScore,
  cellLabel,
  controlLabel,
  keyHistories,
  readLedger,
  readRunManifest,
  type RunScoreFile,
  runLayout,
} from "@loclab/schemas";
import { buildGold, loadPreset } from "@loclab/scoring";
import { acrossSeeds } from "./across-seeds.js";
import { attemptsByCell } from "./attempt-tables.js";
import { compareControls } from "./compare-controls.js";
import { parseRunSpec } from "./load-run-spec.js";
import { planRun, type RunPlan } from "./run-plan.js";
import { type CellExport, writeRunResults } from "./write-run-results.js";

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

/** The results of a run: `results/score.json` (`RunScoreSchema`) and the files written. */
export interface RunScore extends Omit<RunScoreFile, "kind" | "schemaVersion"> {
  /** Files written, relative to the run folder. */
  written: string[];
}

/**
 * The results of a run (`loclab run score`): every cell scored with the unified metrics
 * (docs/definitions.md §3) over the run's instances (a missing prediction scores 0), and with
 * SHERLOC's evaluator (`SHERLOC_TABLE_METRICS`; a missing prediction is a failed generation);
 * per control, each metric's mean ± sample standard deviation across seeds (`acrossSeeds`);
 * each control against `plain` on `pairedMetric`, per seed and pooled (`compareControls`);
 * per cell, how the keys ended and the summed leak audits (from the ledger). Writes the results
 * (`writeRunResults`) unless `write: false`.
 */
export async function scoreRun(dir: string, options: ScoreRunOptions = {}): Promise<RunScore> {
  const manifest = await readRunManifest(dir);
  if (!manifest) throw new Error(`${dir}: no manifest.json: not a run folder`);
  const spec = parseRunSpec(manifest.spec, { source: runLayout.manifest(dir) });
  const plan = await planRun(spec);
  const instanceIds = plan.instances.map((instance) => instance.instance_id);
  const pairedMetric = options.pairedMetric ?? "file.acc@1";
  const { cells, exports, goldSource } = await scoreCells(dir, plan, [
    ...(options.metrics ?? RUN_TABLE_METRICS),
    pairedMetric,
    ...SHERLOC_TABLE_METRICS,
  ]);
  const metrics = [...new Set(cells.flatMap((cell) => Object.keys(cell.metrics)))];
  const controls = [...new Set(plan.cells.map((cell) => controlLabel(cell.control)))];
  const ledger = existsSync(runLayout.ledger(dir))
    ? await readLedger(runLayout.ledger(dir), { repair: false })
    : { records: [] };
  const score: Omit<RunScore, "written"> = {
    dir,
    benchmark: plan.benchmarkName,
    goldSource,
    instanceIds,
    metrics,
    cells,
    acrossSeeds: acrossSeeds(cells, controls, metrics),
    comparisons: compareControls(cells, controls, {
      metric: pairedMetric,
      seeds: spec.seeds ?? [null],
      instanceIds,
      resamples: options.resamples ?? 2000,
      bootstrapSeed: options.bootstrapSeed ?? 1,
      confidence: options.confidence ?? 0.95,
    }),
    attempts: attemptsByCell(plan.attempts, keyHistories(ledger.records)),
  };
  const written = (options.write ?? true) ? await writeRunResults(dir, score, exports) : [];
  return { ...score, written };
}

/**
 * Every cell of the plan scored: the unified metrics under the run's gold (placed on the
 * mirrors' files when the run's mirrors are still there; the patch-only gold otherwise) and
 * SHERLOC's evaluator, keeping `keys` (those a cell has); and each cell's predictions in
 * LocAgent's `loc_outputs` form for the export.
 */
async function scoreCells(
  dir: string,
  plan: RunPlan,
  keys: readonly string[],
): Promise<{ cells: CellScore[]; exports: CellExport[]; goldSource: string }> {
  const { spec } = plan;
  const instanceIds = plan.instances.map((instance) => instance.instance_id);
  const repoOf = new Map(plan.instances.map((instance) => [instance.instance_id, instance.repo]));
  const preset = loadPreset("unified", spec.dataDir ? { dataDir: spec.dataDir } : {});
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
  const cells: CellScore[] = [];
  const exports: CellExport[] = [];
  for (const cell of plan.cells) {
    const label = cellLabel(cell);
    const file = runLayout.predictions(dir, label);
    const predictions = new Map<string, PredictionTargets>();
    if (existsSync(file)) {
      const read = await readPredictions(file, { format: "loclab", instanceIds, repoOf: (id) => repoOf.get(id) });
      for (const prediction of read.predictions) predictions.set(prediction.instanceId, prediction);
      exports.push({ cell: label, model: spec.endpoints[0]?.model, predictions: read.predictions });
    }
    cells.push(scoreCell(label, cell, { instanceIds, gold: built.gold, sherlocGold, predictions, preset, keys }));
  }
  return { cells, exports, goldSource: built.source };
}

function scoreCell(
  label: string,
  cell: RunPlan["cells"][number],
  inputs: {
    instanceIds: string[];
    gold: Parameters<typeof scoreLocalization>[0]["gold"];
    sherlocGold: Parameters<typeof scoreSherloc>[0]["gold"];
    predictions: Map<string, PredictionTargets>;
    preset: Preset;
    keys: readonly string[];
  },
): CellScore {
  const { instanceIds, predictions, preset } = inputs;
  const report = scoreLocalization({ instanceIds, gold: inputs.gold, predictions, preset });
  const sherloc = scoreSherloc({ instanceIds, gold: inputs.sherlocGold, predictions });
  const all = { ...report.metrics, ...sherloc.metrics };
  const metrics: Record<string, number> = {};
  const perInstance: Record<string, number[]> = {};
  for (const key of new Set(inputs.keys)) {
    const value = all[key];
    if (!value || value.n === 0) continue;
    metrics[key] = value.value;
    if (value.perInstance) perInstance[key] = [...value.perInstance];
  }
  const control = controlLabel(cell.control);
  return {
    cell: label,
    seed: cell.seed,
    control,
    n: report.n,
    missingPredictions: report.missingPredictions,
    metrics,
    perInstance,
  };
}
