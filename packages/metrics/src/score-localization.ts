import { accAtK } from "./acc-at-k.js";
import { averagePrecision } from "./average-precision.js";
import { dedupeRanking } from "./dedupe-ranking.js";
import { hitAtK } from "./hit-at-k.js";
import type { LineSpan } from "./line-spans.js";
import { precisionAtK } from "./precision-at-k.js";
import { LEVELS, type Level, type LevelRule, type Preset, type RankingMetric } from "./preset.js";
import { UNIFIED } from "./presets.js";
import { recallAtK } from "./recall-at-k.js";
import { reciprocalRank } from "./reciprocal-rank.js";
import { spanCoverageRecall, spanOverlap, spanPrecision, spanTightness } from "./span-overlap.js";
import { moduleRanking, symbolNameOf } from "./symbol-ids.js";

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
  preset: Preset["name"];
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

/**
 * Scores a localizer's predictions against gold under a preset (default: the unified
 * definitions of domain.md §3). Pure: no I/O; the caller loads gold and predictions.
 * Every metric keeps its per-instance values (NaN where excluded) for paired statistics.
 *
 * Cost: O(instances × (k_max + gold + spans log spans)).
 */
export function scoreLocalization(input: ScoreLocalizationInput): ScoreReport {
  const preset = input.preset ?? UNIFIED;
  const ids = input.instanceIds;
  const metrics: Record<string, MetricValue> = {};
  let fileIncluded = -1;
  let missingPredictions = 0;
  for (const id of ids) {
    if (!preset.excludedIds.has(id) && !input.predictions.has(id)) missingPredictions += 1;
  }

  for (const level of LEVELS) {
    const baseRule = preset.levels[level];
    if (!baseRule) continue;
    const rule: LevelRule = input.ks ? { ...baseRule, ks: [...input.ks] } : baseRule;
    if (!ids.some((id) => goldAt(level, input.gold.get(id)) !== undefined)) continue;
    const included = scoreLevel(level, rule, preset, input, metrics);
    if (level === "file") fileIncluded = included;
  }
  if (preset.spans) scoreSpans(preset, input, metrics);

  const n = fileIncluded < 0 ? 0 : fileIncluded;
  return { preset: preset.name, instanceIds: ids, n, excluded: ids.length - n, missingPredictions, metrics };
}

function goldAt(level: Level, gold: GoldTargets | undefined): readonly string[] | undefined {
  if (!gold) return undefined;
  if (level === "file") return gold.files;
  if (level === "module") return gold.modules ?? (gold.functions ? moduleRanking(gold.functions) : undefined);
  return gold.functions;
}

function predictedAt(level: Level, prediction: PredictionTargets | undefined, preset: Preset): string[] {
  if (!prediction) return [];
  if (preset.emptyFilesMeansMiss && prediction.files.length === 0) return [];
  let list: readonly string[];
  if (level === "file") list = prediction.files;
  else if (level === "module") list = prediction.modules ?? moduleRanking(prediction.functions ?? []);
  else list = prediction.functions ?? [];
  if (level === "function" && preset.stripInitSuffix) list = list.map((id) => (id.endsWith(".__init__") ? id.slice(0, -".__init__".length) : id));
  if (level === "function" && preset.symbolMatch === "name-only") list = list.map(symbolNameOf);
  return dedupeRanking(list).ranking;
}

function metricKeys(level: Level, rule: LevelRule, preset: Preset): { key: string; metric: RankingMetric; k?: number }[] {
  const keys: { key: string; metric: RankingMetric; k?: number }[] = [];
  for (const metric of rule.metrics) {
    const perK = metric === "hit" || metric === "acc" || metric === "recall" || metric === "precision" || (metric === "map" && preset.mapRule === "divide-by-k");
    if (perK) for (const k of rule.ks) keys.push({ key: `${level}.${metric}@${k}`, metric, k });
    else keys.push({ key: `${level}.${metric}`, metric });
  }
  return keys;
}

function scoreLevel(level: Level, rule: LevelRule, preset: Preset, input: ScoreLocalizationInput, into: Record<string, MetricValue>): number {
  const ids = input.instanceIds;
  const keys = metricKeys(level, rule, preset);
  const values = keys.map(() => new Float64Array(ids.length).fill(Number.NaN));
  const maxK = Math.max(...rule.ks);
  let included = 0;
  for (let i = 0; i < ids.length; i += 1) {
    const id = ids[i] as string;
    if (preset.excludedIds.has(id)) continue;
    let goldList = goldAt(level, input.gold.get(id)) ?? [];
    if (level === "function" && preset.symbolMatch === "name-only") goldList = goldList.map(symbolNameOf);
    const gold = new Set(goldList);
    if (gold.size === 0 && preset.excludeEmptyGold) continue;
    included += 1;
    const ranked = predictedAt(level, input.predictions.get(id), preset);
    keys.forEach(({ metric, k }, m) => {
      (values[m] as Float64Array)[i] = rankingValue(metric, k, ranked, gold, rule, preset, maxK);
    });
  }
  keys.forEach(({ key, metric, k }, m) => {
    const perInstance = values[m] as Float64Array;
    into[key] = { key, definition: definitionOf(preset, metric, k), value: meanIgnoringNaN(perInstance), n: included, excluded: ids.length - included, perInstance };
  });
  return included;
}

function rankingValue(metric: RankingMetric, k: number | undefined, ranked: string[], gold: Set<string>, rule: LevelRule, preset: Preset, maxK: number): number {
  if (gold.size === 0) return 0;
  switch (metric) {
    case "hit":
      return hitAtK(ranked, gold, k as number);
    case "acc":
      return accAtK(ranked, gold, k as number);
    case "recall":
      return recallAtK(ranked, gold, k as number, preset.recallDenominator === "min-gold-max-k" ? { denominator: Math.min(gold.size, maxK) } : {});
    case "precision":
      return precisionAtK(ranked, gold, k as number);
    case "mrr":
      return reciprocalRank(ranked, gold, rule.cutoff === undefined ? {} : { cutoff: rule.cutoff });
    case "map":
      if (preset.mapRule === "divide-by-k") return averagePrecision(ranked, gold, { cutoff: k as number, denominator: k as number });
      return averagePrecision(ranked, gold, rule.cutoff === undefined ? {} : { cutoff: rule.cutoff });
  }
}

function scoreSpans(preset: Preset, input: ScoreLocalizationInput, into: Record<string, MetricValue>): void {
  const ids = input.instanceIds;
  const recall = new Float64Array(ids.length).fill(Number.NaN);
  const precision = new Float64Array(ids.length).fill(Number.NaN);
  const tightness = new Float64Array(ids.length).fill(Number.NaN);
  const pooled = { gold: 0, predicted: 0, overlap: 0, tightSum: 0, tightCount: 0 };
  let included = 0;
  let tightIncluded = 0;
  for (let i = 0; i < ids.length; i += 1) {
    const id = ids[i] as string;
    const goldSpans = input.gold.get(id)?.spans;
    if (preset.excludedIds.has(id) || !goldSpans || goldSpans.length === 0) continue;
    const overlap = spanOverlap(input.predictions.get(id)?.locations ?? [], goldSpans);
    included += 1;
    recall[i] = spanCoverageRecall(overlap) ?? Number.NaN;
    precision[i] = spanPrecision(overlap);
    const tight = spanTightness(overlap);
    if (tight !== undefined) {
      tightness[i] = tight;
      tightIncluded += 1;
    }
    pooled.gold += overlap.goldLines;
    pooled.predicted += overlap.predictedLines;
    pooled.overlap += overlap.overlapLines;
    pooled.tightSum += overlap.tightnessSum;
    pooled.tightCount += overlap.tightnessCount;
  }
  const add = (key: string, definition: string, value: number, n: number, perInstance?: Float64Array) => {
    into[key] = { key, definition: `${preset.name}: ${definition}`, value, n, excluded: ids.length - n, ...(perInstance ? { perInstance } : {}) };
  };
  add("span.coverageRecall", "macro mean of |L(P)∩L(G)|/|L(G)| over instances with gold spans", meanIgnoringNaN(recall), included, recall);
  add("span.precision", "macro mean of |L(P)∩L(G)|/|L(P)| (0 when P is empty)", meanIgnoringNaN(precision), included, precision);
  add("span.tightness", "macro mean of per-instance average best IoU over overlapped gold spans (instances with none overlapped excluded)", meanIgnoringNaN(tightness), tightIncluded, tightness);
  add("span.coverageRecallMicro", "pooled Σ|L(P)∩L(G)| / Σ|L(G)|", pooled.gold === 0 ? 0 : pooled.overlap / pooled.gold, included);
  add("span.precisionMicro", "pooled Σ|L(P)∩L(G)| / Σ|L(P)|", pooled.predicted === 0 ? 0 : pooled.overlap / pooled.predicted, included);
  add("span.tightnessMicro", "pooled mean best IoU over all overlapped gold spans", pooled.tightCount === 0 ? 0 : pooled.tightSum / pooled.tightCount, included);
}

const WORDS: Record<RankingMetric, string> = {
  hit: "hit@k = 1 if any gold item is in the top k",
  acc: "acc@k = 1 if the top k hold min(|G|, k) gold items",
  recall: "recall@k = |P_k ∩ G| / |G|",
  precision: "precision@k = |P_k ∩ G| / k",
  mrr: "MRR = mean of 1/rank of the first gold item (0 if none)",
  map: "MAP = mean of (1/|G|)·Σ precision@r over gold ranks r",
};

function definitionOf(preset: Preset, metric: RankingMetric, k: number | undefined): string {
  let words = WORDS[metric];
  if (metric === "recall" && preset.recallDenominator === "min-gold-max-k") words = "recall@k = |P_k ∩ G| / min(|G|, largest k of the level)";
  if (metric === "map" && preset.mapRule === "divide-by-k") words = "MAP@k = (1/k)·Σ precision@r over gold ranks r ≤ k";
  return `${preset.name}: ${words}${k === undefined ? "" : ` (k = ${k})`}`;
}

/** Mean of the non-NaN entries; 0 when there are none (an empty set scores nothing). */
export function meanIgnoringNaN(values: Float64Array): number {
  let sum = 0;
  let count = 0;
  for (const value of values) {
    if (Number.isNaN(value)) continue;
    sum += value;
    count += 1;
  }
  return count === 0 ? 0 : sum / count;
}

