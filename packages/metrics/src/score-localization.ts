import { withoutRepeats } from "./dedupe-ranking.js";
import { type RankProfile, apSumOf, fillRankProfile, hitsAtKOf, newRankProfile } from "./rank-profile.js";
import { type LineSet, type LineSpan, lineSetOf } from "./line-spans.js";
import { LEVELS, type Level, type LevelRule, type Preset, type RankingMetric } from "./preset-type.js";
import { UNIFIED } from "./builtin-presets.js";
import { overlapWithGoldLineSet, spanCoverageRecall, spanPrecision, spanTightness } from "./span-overlap.js";
import { moduleRanking, symbolNameOf } from "./symbol-ids.js";
import type { GoldTargets, MetricValue, PredictionTargets, ScoreLocalizationInput, ScoreReport } from "./score-report.js";

/**
 * Gold prepared once for a preset: the gold set of every instance at every level (null
 * where the instance is excluded), aligned with the instance ids. Scoring many runs of one
 * localizer against the same gold (seeds, controls) prepares it once; see `scoreRuns`.
 */
export interface PreparedGold {
  preset: Preset;
  instanceIds: readonly string[];
  levels: PreparedLevel[];
  /** Gold line sets per instance (null where excluded or without spans); null when the preset scores no spans. */
  spans: (LineSet | null)[] | null;
  /** Instances scored at file level (-1 when the file level is not scored). */
  fileIncluded: number;
}

interface PreparedLevel {
  level: Level;
  rule: LevelRule;
  keys: MetricKey[];
  gold: (ReadonlySet<string> | null)[];
  rules: ValueRules;
  /** |G| per instance under the preset's rule (see `Preset.goldSizeCountsRepeats`). */
  goldSizes: Int32Array;
  included: number;
  maxK: number;
}

/** Builds the gold sets of `input` under its preset (default: unified). */
export function prepareGold(input: Omit<ScoreLocalizationInput, "predictions">): PreparedGold {
  const preset = input.preset ?? UNIFIED;
  const ids = input.instanceIds;
  const levels: PreparedLevel[] = [];
  let fileIncluded = -1;
  for (const level of LEVELS) {
    const baseRule = preset.levels[level];
    if (!baseRule) continue;
    if (!ids.some((id) => goldAt(level, input.gold.get(id)) !== undefined)) continue;
    const rule: LevelRule = input.ks ? { ...baseRule, ks: [...input.ks] } : baseRule;
    let included = 0;
    const goldSizes = new Int32Array(ids.length);
    const gold = ids.map((id, i) => {
      if (preset.excludedIds.has(id)) return null;
      let list = goldAt(level, input.gold.get(id)) ?? [];
      if (level === "function" && preset.symbolMatch === "name-only") list = list.map(symbolNameOf);
      const set = new Set(list);
      if (set.size === 0 && preset.excludeEmptyGold) return null;
      goldSizes[i] = preset.goldSizeCountsRepeats ? list.length : set.size;
      included += 1;
      return set;
    });
    const maxK = Math.max(...rule.ks);
    const rules: ValueRules = {
      recallOverMinGoldMaxK: preset.recallDenominator === "min-gold-max-k",
      mapOverK: preset.mapRule === "divide-by-k",
      cutoff: rule.cutoff ?? Number.POSITIVE_INFINITY,
      maxK,
    };
    levels.push({ level, rule, rules, keys: metricKeys(level, rule, preset), gold, goldSizes, included, maxK });
    if (level === "file") fileIncluded = included;
  }
  const spans = preset.spans
    ? ids.map((id) => {
        const goldSpans = input.gold.get(id)?.spans;
        return preset.excludedIds.has(id) || !goldSpans || goldSpans.length === 0 ? null : lineSetOf(goldSpans);
      })
    : null;
  return { preset, instanceIds: ids, levels, spans, fileIncluded };
}

/**
 * Scores a localizer's predictions against gold under a preset (default: the unified
 * definitions of docs/definitions.md §3). Pure: no I/O; the caller loads gold and predictions.
 * Every metric keeps its per-instance values (NaN where excluded) for paired statistics.
 *
 * Cost: O(instances × (k_max + gold + spans log spans)).
 */
export function scoreLocalization(input: ScoreLocalizationInput): ScoreReport {
  return scorePrepared(prepareGold(input), input.predictions);
}

/**
 * Scores one run of predictions against prepared gold (see `prepareGold`). Instances are the
 * outer loop, so each prediction is looked up once for all levels.
 */
export function scorePrepared(prepared: PreparedGold, predictions: ReadonlyMap<string, PredictionTargets>): ScoreReport {
  const { preset, instanceIds: ids, levels } = prepared;
  const values = levels.map((level) => level.keys.map(() => new Float64Array(ids.length).fill(Number.NaN)));
  const sums = levels.map((level) => new Float64Array(level.keys.length));
  const scratch = newRankProfile();
  let missingPredictions = 0;
  for (let i = 0; i < ids.length; i += 1) {
    if (preset.excludedIds.has(ids[i] as string)) continue;
    const prediction = predictions.get(ids[i] as string);
    if (!prediction) missingPredictions += 1;
    for (let l = 0; l < levels.length; l += 1) {
      const { level, rules, keys, gold, goldSizes } = levels[l] as PreparedLevel;
      const goldSet = gold[i];
      if (!goldSet) continue;
      const profile = fillRankProfile(scratch, predictedAt(level, prediction, preset), goldSet);
      profile.goldSize = goldSizes[i] as number;
      const levelValues = values[l] as Float64Array[];
      const levelSums = sums[l] as Float64Array;
      for (let m = 0; m < keys.length; m += 1) {
        const key = keys[m] as MetricKey;
        const value = rankingValue(key.code, key.k, profile, rules);
        (levelValues[m] as Float64Array)[i] = value;
        levelSums[m] = (levelSums[m] as number) + value;
      }
    }
  }
  const metrics: Record<string, MetricValue> = {};
  levels.forEach(({ keys, included }, l) => {
    keys.forEach(({ key, metric, k }, m) => {
      metrics[key] = {
        key,
        definition: definitionOf(preset, metric, k),
        value: included === 0 ? 0 : ((sums[l] as Float64Array)[m] as number) / included,
        n: included,
        excluded: ids.length - included,
        perInstance: (values[l] as Float64Array[])[m] as Float64Array,
      };
    });
  });
  if (prepared.spans) scoreSpans(prepared, predictions, metrics);
  const n = Math.max(prepared.fileIncluded, 0);
  return { preset: preset.name, instanceIds: ids, n, excluded: ids.length - n, missingPredictions, metrics };
}

function goldAt(level: Level, gold: GoldTargets | undefined): readonly string[] | undefined {
  if (!gold) return undefined;
  if (level === "file") return gold.files;
  if (level === "module") return gold.modules ?? (gold.functions ? moduleRanking(gold.functions) : undefined);
  return gold.functions;
}

function predictedAt(level: Level, prediction: PredictionTargets | undefined, preset: Preset): readonly string[] {
  if (!prediction) return [];
  if (preset.emptyFilesMeansMiss && prediction.files.length === 0) return [];
  let list: readonly string[];
  if (level === "file") list = prediction.files;
  else if (level === "module") list = prediction.modules ?? moduleRanking(prediction.functions ?? []);
  else list = prediction.functions ?? [];
  if (level === "function" && preset.stripInitSuffix) list = list.map((id) => (id.endsWith(".__init__") ? id.slice(0, -".__init__".length) : id));
  if (level === "function" && preset.symbolMatch === "name-only") list = list.map(symbolNameOf);
  return withoutRepeats(list);
}

interface MetricKey {
  key: string;
  metric: RankingMetric;
  /** `metric` as a small integer, so the per-instance loop switches on numbers. */
  code: MetricCode;
  /** 0 for metrics without k. */
  k: number;
}

const enum MetricCode {
  Hit,
  Acc,
  Recall,
  Precision,
  Mrr,
  Map,
}
const CODES: Record<RankingMetric, MetricCode> = { hit: MetricCode.Hit, acc: MetricCode.Acc, recall: MetricCode.Recall, precision: MetricCode.Precision, mrr: MetricCode.Mrr, map: MetricCode.Map };

function metricKeys(level: Level, rule: LevelRule, preset: Preset): MetricKey[] {
  const keys: MetricKey[] = [];
  for (const metric of rule.metrics) {
    const perK = metric === "hit" || metric === "acc" || metric === "recall" || metric === "precision" || (metric === "map" && preset.mapRule === "divide-by-k");
    if (perK) for (const k of rule.ks) keys.push({ key: `${level}.${metric}@${k}`, metric, code: CODES[metric], k });
    else keys.push({ key: `${level}.${metric}`, metric, code: CODES[metric], k: 0 });
  }
  return keys;
}

/** The preset's per-metric rule switches, read once per level instead of per value. */
interface ValueRules {
  recallOverMinGoldMaxK: boolean;
  mapOverK: boolean;
  cutoff: number;
  maxK: number;
}

/**
 * One metric of one instance, read off its rank profile. Each branch is the definition of
 * the single-metric function named beside it (tested equal on random rankings).
 */
function rankingValue(code: MetricCode, k: number, profile: RankProfile, rules: ValueRules): number {
  const goldSize = profile.goldSize;
  if (goldSize === 0) return 0;
  switch (code) {
    case MetricCode.Hit: // hitAtK
      return hitsAtKOf(profile, k) > 0 ? 1 : 0;
    case MetricCode.Acc: // accAtK
      return hitsAtKOf(profile, k) >= Math.min(goldSize, k) ? 1 : 0;
    case MetricCode.Recall: // recallAtK
      return hitsAtKOf(profile, k) / (rules.recallOverMinGoldMaxK ? Math.min(goldSize, rules.maxK) : goldSize);
    case MetricCode.Precision: // precisionAtK
      return hitsAtKOf(profile, k) / k;
    case MetricCode.Mrr: // reciprocalRank
      return profile.firstGoldRank === 0 || profile.firstGoldRank > rules.cutoff ? 0 : 1 / profile.firstGoldRank;
    case MetricCode.Map: // averagePrecision
      if (rules.mapOverK) return apSumOf(profile, k) / k;
      return apSumOf(profile, rules.cutoff) / goldSize;
  }
}

function scoreSpans(prepared: PreparedGold, predictions: ReadonlyMap<string, PredictionTargets>, into: Record<string, MetricValue>): void {
  const { preset, instanceIds: ids } = prepared;
  const goldSpansOf = prepared.spans ?? [];
  const recall = new Float64Array(ids.length).fill(Number.NaN);
  const precision = new Float64Array(ids.length).fill(Number.NaN);
  const tightness = new Float64Array(ids.length).fill(Number.NaN);
  const pooled = { gold: 0, predicted: 0, overlap: 0, tightSum: 0, tightCount: 0 };
  let included = 0;
  let tightIncluded = 0;
  for (let i = 0; i < ids.length; i += 1) {
    const goldSpans = goldSpansOf[i];
    if (!goldSpans) continue;
    const overlap = overlapWithGoldLineSet(predictions.get(ids[i] as string)?.locations ?? [], goldSpans);
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

function definitionOf(preset: Preset, metric: RankingMetric, k: number): string {
  let words = WORDS[metric];
  if (metric === "recall" && preset.recallDenominator === "min-gold-max-k") words = "recall@k = |P_k ∩ G| / min(|G|, largest k of the level)";
  if (metric === "map" && preset.mapRule === "divide-by-k") words = "MAP@k = (1/k)·Σ precision@r over gold ranks r ≤ k";
  return `${preset.name}: ${words}${k === 0 ? "" : ` (k = ${k})`}`;
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
