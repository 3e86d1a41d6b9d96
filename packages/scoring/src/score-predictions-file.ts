import { loadBenchmark } from "@loclab/datasets";
import {
  type PredictionTargets,
  type ScoreReport,
  type SherlocPredictionTargets,
  scoreLocalization,
  scoreSherloc,
} from "@loclab/metrics";
import { sherlocGoldLocations } from "@loclab/gold";
import { type PredictionFormat, type ReadReport, readPredictions } from "@loclab/predictions";
import { buildGold } from "./build-gold.js";
import { SCORING_PRESETS, SHERLOC_GOLD_SOURCE, SHERLOC_PRESET, loadPreset } from "./preset-by-name.js";

export interface ScorePredictionsFileOptions {
  /** `lite`, `verified`, `locbench`, or a JSONL path of SWE-bench rows. */
  benchmark: string;
  predictions: string;
  format: PredictionFormat;
  /** Default `unified`; `sherloc` scores with SHERLOC's own evaluator (`scoreSherloc`). */
  preset?: string;
  /** Replaces the preset's k values. */
  ks?: readonly number[];
  dataDir?: string;
  /** Mirrors folder: gold placed on the files at base commit, exact function gold (`buildGold`). */
  repos?: string;
}

export interface ScorePredictionsFileResult {
  benchmark: string;
  predictionsFile: string;
  format: PredictionFormat;
  report: ScoreReport;
  read: ReadReport;
  goldSource: string;
  /** Instances whose gold patch failed to parse (excluded; see `patchFailures`). */
  patchFailures: { instanceId: string; message: string }[];
  /** With `repos`: instances that could not be read at base commit (patch-only gold). */
  checkoutFailures: { instanceId: string; message: string }[];
}

/**
 * Scores one prediction file against a benchmark under a preset: loads the benchmark,
 * reads the predictions (normalizing paths with each instance's repository), builds the
 * preset's gold, and applies `scoreLocalization` over the benchmark's instance ids.
 * Predictions for ids outside the benchmark are reported by the reader and never scored.
 */
export async function scorePredictionsFile(options: ScorePredictionsFileOptions): Promise<ScorePredictionsFileResult> {
  const dataDirOption = options.dataDir ? { dataDir: options.dataDir } : {};
  const presetName = options.preset ?? "unified";
  if (presetName !== SHERLOC_PRESET && !(SCORING_PRESETS as readonly string[]).includes(presetName)) {
    throw new Error(`unknown preset ${JSON.stringify(presetName)}: expected one of ${SCORING_PRESETS.join(", ")}`);
  }
  const benchmark = await loadBenchmark(options.benchmark, dataDirOption);
  const repoOf = new Map(benchmark.instances.map((instance) => [instance.instance_id, instance.repo]));
  const instanceIds = benchmark.instances.map((instance) => instance.instance_id);
  const { predictions, report: read } = await readPredictions(options.predictions, {
    format: options.format,
    instanceIds,
    repoOf: (id) => repoOf.get(id),
  });
  if (presetName === SHERLOC_PRESET) {
    const gold = new Map(
      benchmark.instances.map((instance) => [instance.instance_id, sherlocGoldLocations(instance.patch)]),
    );
    const byId = new Map<string, SherlocPredictionTargets>(
      predictions.map((prediction) => [prediction.instanceId, prediction]),
    );
    const report = scoreSherloc({ instanceIds, gold, predictions: byId });
    return {
      benchmark: benchmark.name,
      predictionsFile: options.predictions,
      format: options.format,
      report,
      read,
      goldSource: SHERLOC_GOLD_SOURCE,
      patchFailures: [],
      checkoutFailures: [],
    };
  }
  const preset = loadPreset(presetName, dataDirOption);
  const built = await buildGold({
    preset,
    benchmark: options.benchmark,
    instances: benchmark.instances,
    predictionsFile: options.predictions,
    ...dataDirOption,
    ...(options.repos ? { repos: options.repos } : {}),
  });
  const byId = new Map<string, PredictionTargets>(predictions.map((prediction) => [prediction.instanceId, prediction]));
  const report = scoreLocalization({
    instanceIds,
    gold: built.gold,
    predictions: byId,
    preset,
    ...(options.ks ? { ks: options.ks } : {}),
  });
  return {
    benchmark: benchmark.name,
    predictionsFile: options.predictions,
    format: options.format,
    report,
    read,
    goldSource: built.source,
    patchFailures: built.patchFailures,
    checkoutFailures: built.checkoutFailures,
  };
}
