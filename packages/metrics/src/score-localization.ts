import { type CodedLineSet, CodedSpanScorer, codeLineSet } from "./coded-spans.js";
import { CodeMarks, DerivedCodes, Interner } from "./interner.js";
import { type RankProfile, apSumOf, fillRankProfileOfCodes, hitsAtKOf, newRankProfile } from "./rank-profile.js";
import { type LineSet, type LineSpan, lineSetOf } from "./line-spans.js";
import { LEVELS, type Level, type LevelRule, type Preset, type RankingMetric } from "./preset-type.js";
import { UNIFIED } from "./builtin-presets.js";
import { spanCoverageRecall, spanPrecision, spanTightness } from "./span-overlap.js";
import { moduleIdOf, moduleRanking, symbolNameOf } from "./symbol-ids.js";
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
  /** Paths and symbols of the gold and of every run scored so far, as integer codes. */
  codes: ScoringCodes;
}

/**
 * The run set's interner and what is derived from codes once per run set: a function id's
 * module id, and the preset's function-level key (`.__init__` stripped, name only). Scoring
 * a run codes its predictions' strings (one hash each) and works on integers from there.
 */
interface ScoringCodes {
  interner: Interner;
  moduleOf: DerivedCodes;
  /** Undefined when the preset compares function ids as given. */
  functionKeyOf: DerivedCodes | undefined;
  seen: CodeMarks;
  gold: CodeMarks;
  ranking: Int32Array;
  spans: CodedSpanScorer;
  /** Gold line sets with coded paths, aligned with `PreparedGold.spans`. */
  goldSpans: (CodedLineSet | null)[] | null;
}

interface PreparedLevel {
  level: Level;
  rule: LevelRule;
  keys: MetricKey[];
  gold: (ReadonlySet<string> | null)[];
  /** `gold` as codes (distinct, in the set's order). */
  goldCodes: (Int32Array | null)[];
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
  const interner = new Interner();
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
    const goldCodes = gold.map((set) => (set ? Int32Array.from(set, (item) => interner.code(item)) : null));
    levels.push({ level, rule, rules, keys: metricKeys(level, rule, preset), gold, goldCodes, goldSizes, included, maxK });
    if (level === "file") fileIncluded = included;
  }
  const spans = preset.spans
    ? ids.map((id) => {
        const goldSpans = input.gold.get(id)?.spans;
        return preset.excludedIds.has(id) || !goldSpans || goldSpans.length === 0 ? null : lineSetOf(goldSpans);
      })
    : null;
  const codes: ScoringCodes = {
    interner,
    moduleOf: new DerivedCodes(interner, moduleIdOf),
    functionKeyOf: preset.stripInitSuffix || preset.symbolMatch === "name-only" ? new DerivedCodes(interner, (id) => functionKeyOf(id, preset)) : undefined,
    seen: new CodeMarks(),
    gold: new CodeMarks(),
    ranking: new Int32Array(64),
    spans: new CodedSpanScorer(interner),
    goldSpans: spans ? spans.map((set) => (set ? codeLineSet(set, interner) : null)) : null,
  };
  return { preset, instanceIds: ids, levels, spans, fileIncluded, codes };
}

/** A predicted function id as the preset compares it: `.__init__` stripped (LocAgent), then the name alone (CoSIL). */
function functionKeyOf(id: string, preset: Preset): string {
  const stripped = preset.stripInitSuffix && id.endsWith(".__init__") ? id.slice(0, -".__init__".length) : id;
  return preset.symbolMatch === "name-only" ? symbolNameOf(stripped) : stripped;
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
  const { codes } = prepared;
  // Each prediction is looked up once; then one level at a time over all instances, so that
  // the level's gold, rules and metric codes stay in registers.
  const byInstance: (PredictionTargets | undefined)[] = new Array(ids.length);
  let missingPredictions = 0;
  for (let i = 0; i < ids.length; i += 1) {
    if (preset.excludedIds.has(ids[i] as string)) continue;
    const prediction = predictions.get(ids[i] as string);
    if (!prediction) missingPredictions += 1;
    byInstance[i] = prediction;
  }
  for (let l = 0; l < levels.length; l += 1) {
    const { level, rules, keys, goldCodes, goldSizes } = levels[l] as PreparedLevel;
    const levelValues = values[l] as Float64Array[];
    const levelSums = sums[l] as Float64Array;
    const metricCodes = Int32Array.from(keys, (key) => key.code);
    const metricKs = Int32Array.from(keys, (key) => key.k);
    const marks = codes.gold;
    for (let i = 0; i < ids.length; i += 1) {
      const goldSet = goldCodes[i];
      if (!goldSet) continue;
      const length = predictedCodes(level, byInstance[i], preset, codes);
      marks.clear();
      for (let g = 0; g < goldSet.length; g += 1) marks.add(goldSet[g] as number);
      const profile = fillRankProfileOfCodes(scratch, codes.ranking, length, marks);
      profile.goldSize = goldSizes[i] as number;
      for (let m = 0; m < metricCodes.length; m += 1) {
        const value = rankingValue(metricCodes[m] as MetricCode, metricKs[m] as number, profile, rules);
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

/**
 * The predicted ranking of one level as codes, without repeats (first rank kept), written to
 * `codes.ranking`; returns its length. The same list as the definitions' string form: files
 * as given, modules as given or derived from the functions in order of first appearance,
 * functions under the preset's key.
 */
function predictedCodes(level: Level, prediction: PredictionTargets | undefined, preset: Preset, codes: ScoringCodes): number {
  if (!prediction) return 0;
  if (preset.emptyFilesMeansMiss && prediction.files.length === 0) return 0;
  const { interner, seen } = codes;
  const fromModules = level === "module" && prediction.modules !== undefined;
  const list = level === "file" ? prediction.files : fromModules ? (prediction.modules as readonly string[]) : (prediction.functions ?? []);
  if (list.length > codes.ranking.length) codes.ranking = new Int32Array(2 * list.length);
  const ranking = codes.ranking;
  seen.clear();
  let length = 0;
  for (let i = 0; i < list.length; i += 1) {
    let code = interner.code(list[i] as string);
    if (level === "module" && !fromModules) code = codes.moduleOf.of(code);
    else if (level === "function" && codes.functionKeyOf) code = codes.functionKeyOf.of(code);
    if (seen.has(code)) continue;
    seen.add(code);
    ranking[length] = code;
    length += 1;
  }
  return length;
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
    const coded = prepared.codes.goldSpans?.[i];
    if (!coded) continue;
    const overlap = prepared.codes.spans.overlap(predictions.get(ids[i] as string)?.locations ?? [], coded);
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
