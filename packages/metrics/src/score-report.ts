// The inputs and reports of localization scoring, apart from the scorer so that both the
// scorer and the aggregation across runs can use them without importing each other.
import type { LineSpan } from "./line-spans.js";
import type { Preset } from "./preset-type.js";

/** What an instance's gold offers at each level; a level left undefined is not scored. */
export interface GoldTargets {
  files: readonly string[];
  modules?: readonly string[];
  functions?: readonly string[];
  spans?: readonly LineSpan[];
}

/** The parts of a prediction the metrics read (a `Prediction` fits). */
export interface PredictionTargets {
  files: readonly string[];
  modules?: readonly string[];
  functions?: readonly string[];
  locations?: readonly LineSpan[];
}

/** One metric over the scored instances, with its per-instance values for paired tests. */
export interface MetricValue {
  /** `<level>.<metric>@<k>` or `<level>.<metric>`, e.g. `file.acc@1`, `span.coverageRecall`. */
  key: string;
  /** The preset and the rule applied, in words. */
  definition: string;
  /** Macro mean over the included instances (pooled ratio for `…Micro` span metrics). */
  value: number;
  n: number;
  excluded: number;
  /** Aligned with `ScoreReport.instanceIds`; NaN where the instance is excluded. Absent for micro forms. */
  perInstance?: Float64Array;
}

export interface ScoreReport {
  /** The preset's name; `sherloc` for SHERLOC's own evaluator (`scoreSherloc`). */
  preset: Preset["name"] | "sherloc";
  /** The instances considered, in the order given. */
  instanceIds: readonly string[];
  /** Instances scored at file level. */
  n: number;
  /** Instances left out at file level (peer exclusion list, empty gold), counted not hidden. */
  excluded: number;
  /** Scored instances that had no prediction (scored 0). */
  missingPredictions: number;
  metrics: Record<string, MetricValue>;
}

export interface ScoreLocalizationInput {
  /** The universe of instances, e.g. a benchmark's ids. Predictions for other ids are ignored. */
  instanceIds: readonly string[];
  gold: ReadonlyMap<string, GoldTargets>;
  predictions: ReadonlyMap<string, PredictionTargets>;
  preset?: Preset;
  /** Replaces the preset's k values at every level. */
  ks?: readonly number[];
}
