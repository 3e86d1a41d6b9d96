import { type CodedLineSet, CodedSpanScorer, codeLineSet } from "./coded-spans.js";
import { CodeMarks, DerivedCodes, Interner } from "./interner.js";
import { type RankProfile, apSumOf, fillRankProfileOfCodes, hitsAtKOf, newRankProfile } from "./rank-profile.js";
import { type LineSet, lineSetOf } from "./line-spans.js";
import { LEVELS, type Level, type LevelRule, type Preset, type RankingMetric } from "./preset-type.js";
import { UNIFIED } from "./builtin-presets.js";
import { spanCoverageRecall, spanPrecision, spanTightness } from "./span-overlap.js";
import { moduleIdOf, moduleRanking, symbolNameOf } from "./symbol-ids.js";
import type {
  GoldTargets,
  MetricValue,
  PredictionTargets,
  ScoreLocalizationInput,
  ScoreReport,
} from "./score-report.js";
import type { SpanOverlap } from "./span-overlap-counts.js";

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
  /** A prediction's function ids as codes (repeats kept), shared by the module and function levels. */
  functionCodes: Int32Array;
  spans: CodedSpanScorer;
  /** Gold line sets with coded paths, aligned with `PreparedGold.spans`. */
  goldSpans: (CodedLineSet | null)[] | null;
}

interface PreparedLevel {
  level: Level;
  rule: LevelRule;
  keys: MetricKey[];
  gold: (ReadonlySet<string> | null)[];
  /**
   * `gold` as codes (distinct, in the set's order), all instances in one array: instance i's
   * codes are `goldCodes[goldStart[i]] … goldCodes[goldStart[i + 1] - 1]`, and an excluded
   * instance has `goldExcluded[i] = 1`. One array read in order instead of one small array
   * per instance spread over the heap.
   */
  goldCodes: Int32Array;
  goldStart: Int32Array;
  goldExcluded: Uint8Array;
  rules: ValueRules;
  /** |G| per instance under the preset's rule (see `Preset.goldSizeCountsRepeats`). */
  goldSizes: Int32Array;
  included: number;
  maxK: number;
  /**
   * A metric column before any instance is scored: 0, and NaN where the level excludes the
   * instance. An instance whose ranking misses every gold item then needs no write at all
   * (ValueRules.zeroWithoutHits), where 60 writes to 60 columns cost a cache miss each.
   */
  blankColumn: Float64Array;
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
      zeroWithoutHits: rule.ks.every((k) => k > 0),
    };
    const goldStart = new Int32Array(ids.length + 1);
    const goldExcluded = new Uint8Array(ids.length);
    let total = 0;
    gold.forEach((set, i) => {
      goldStart[i] = total;
      if (set) total += set.size;
      else goldExcluded[i] = 1;
    });
    goldStart[ids.length] = total;
    const goldCodes = new Int32Array(total);
    gold.forEach((set, i) => {
      let at = goldStart[i] as number;
      for (const item of set ?? []) goldCodes[at++] = interner.code(item);
    });
    const blankColumn = new Float64Array(ids.length);
    for (let i = 0; i < ids.length; i += 1) if (goldExcluded[i] === 1) blankColumn[i] = Number.NaN;
    levels.push({
      level,
      rule,
      rules,
      keys: metricKeys(level, rule, preset),
      gold,
      goldCodes,
      goldStart,
      goldExcluded,
      goldSizes,
      included,
      maxK,
      blankColumn,
    });
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
    functionKeyOf:
      preset.stripInitSuffix || preset.symbolMatch === "name-only"
        ? new DerivedCodes(interner, (id) => functionKeyOf(id, preset))
        : undefined,
    seen: new CodeMarks(),
    gold: new CodeMarks(),
    ranking: new Int32Array(64),
    functionCodes: new Int32Array(64),
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
 * outer loop: each prediction is looked up and its strings coded once for every level and the
 * spans (a function id serves both the module and the function level), so that a run's
 * objects, spread over the heap, are fetched from memory once.
 */
export function scorePrepared(
  prepared: PreparedGold,
  predictions: ReadonlyMap<string, PredictionTargets>,
): ScoreReport {
  const { preset, instanceIds: ids, levels } = prepared;
  // Each column starts as a copy of its level's blank column (see PreparedLevel.blankColumn).
  const values = levels.map((level) => level.keys.map(() => level.blankColumn.slice()));
  const sums = levels.map((level) => new Float64Array(level.keys.length));
  const metricCodes = levels.map(({ keys }) => Int32Array.from(keys, (key) => key.code));
  const metricKs = levels.map(({ keys }) => Int32Array.from(keys, (key) => key.k));
  const scratch = newRankProfile();
  const { codes } = prepared;
  const spans = prepared.spans ? new SpanTotals(ids.length) : undefined;
  const marks = codes.gold;
  let missingPredictions = 0;
  for (let i = 0; i < ids.length; i += 1) {
    if (preset.excludedIds.has(ids[i] as string)) continue;
    const prediction = predictions.get(ids[i] as string);
    if (!prediction) missingPredictions += 1;
    // The prediction's function ids as codes, coded on first need (module or function level).
    let functionLength = -1;
    for (let l = 0; l < levels.length; l += 1) {
      const { level, rules, goldCodes, goldStart, goldExcluded, goldSizes } = levels[l] as PreparedLevel;
      if (goldExcluded[i] === 1) continue;
      let length = 0;
      if (prediction && !(preset.emptyFilesMeansMiss && prediction.files.length === 0)) {
        if (level === "file") length = rankingOfStrings(prediction.files, codes);
        else if (level === "module" && prediction.modules !== undefined)
          length = rankingOfStrings(prediction.modules, codes);
        else {
          if (functionLength < 0) functionLength = codeFunctions(prediction.functions ?? [], codes);
          length = rankingOfCodes(
            codes.functionCodes,
            functionLength,
            level === "module" ? codes.moduleOf : codes.functionKeyOf,
            codes,
          );
        }
      }
      marks.clear();
      const goldEnd = goldStart[i + 1] as number;
      for (let g = goldStart[i] as number; g < goldEnd; g += 1) marks.add(goldCodes[g] as number);
      const profile = fillRankProfileOfCodes(scratch, codes.ranking, length, marks);
      profile.goldSize = goldSizes[i] as number;
      const levelValues = values[l] as Float64Array[];
      const levelSums = sums[l] as Float64Array;
      const levelCodes = metricCodes[l] as Int32Array;
      const levelKs = metricKs[l] as Int32Array;
      // Every metric is 0, as the columns already hold.
      if (profile.firstGoldRank === 0 && rules.zeroWithoutHits) continue;
      for (let m = 0; m < levelCodes.length; m += 1) {
        const value = rankingValue(levelCodes[m] as MetricCode, levelKs[m] as number, profile, rules);
        (levelValues[m] as Float64Array)[i] = value;
        levelSums[m] = (levelSums[m] as number) + value;
      }
    }
    const coded = spans ? prepared.codes.goldSpans?.[i] : undefined;
    if (spans && coded) spans.add(i, prepared.codes.spans.overlap(prediction?.locations ?? [], coded));
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
  if (spans) spans.report(preset, ids.length, metrics);
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
 * A ranking given as strings (files, or modules as given) as codes without repeats (first
 * rank kept), written to `codes.ranking`; returns its length. The same list as the
 * definitions' string form.
 */
function rankingOfStrings(list: readonly string[], codes: ScoringCodes): number {
  if (list.length > codes.ranking.length) codes.ranking = new Int32Array(2 * list.length);
  const { interner, seen, ranking } = codes;
  seen.clear();
  let length = 0;
  for (let i = 0; i < list.length; i += 1) {
    const code = interner.code(list[i] as string);
    if (seen.has(code)) continue;
    seen.add(code);
    ranking[length] = code;
    length += 1;
  }
  return length;
}

/** A prediction's function ids as codes, in order, repeats kept, into `codes.functionCodes`; returns their number. */
function codeFunctions(list: readonly string[], codes: ScoringCodes): number {
  if (list.length > codes.functionCodes.length) codes.functionCodes = new Int32Array(2 * list.length);
  const { interner, functionCodes } = codes;
  for (let i = 0; i < list.length; i += 1) functionCodes[i] = interner.code(list[i] as string);
  return list.length;
}

/**
 * Coded function ids as one level's ranking, without repeats (first rank kept), into
 * `codes.ranking`: each mapped by `derive` (a function's module id; the preset's function
 * key), or as given when `derive` is undefined. Modules derived from functions thus come in
 * order of first appearance. Returns the ranking's length.
 */
function rankingOfCodes(
  list: Int32Array,
  count: number,
  derive: DerivedCodes | undefined,
  codes: ScoringCodes,
): number {
  if (count > codes.ranking.length) codes.ranking = new Int32Array(2 * count);
  const { seen, ranking } = codes;
  seen.clear();
  let length = 0;
  for (let i = 0; i < count; i += 1) {
    const code = derive ? derive.of(list[i] as number) : (list[i] as number);
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
const CODES: Record<RankingMetric, MetricCode> = {
  hit: MetricCode.Hit,
  acc: MetricCode.Acc,
  recall: MetricCode.Recall,
  precision: MetricCode.Precision,
  mrr: MetricCode.Mrr,
  map: MetricCode.Map,
};

function metricKeys(level: Level, rule: LevelRule, preset: Preset): MetricKey[] {
  const keys: MetricKey[] = [];
  for (const metric of rule.metrics) {
    const perK =
      metric === "hit" ||
      metric === "acc" ||
      metric === "recall" ||
      metric === "precision" ||
      (metric === "map" && preset.mapRule === "divide-by-k");
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
  /**
   * Every metric of an instance is 0 when its ranking holds no gold item: hit, acc (min(|G|,
   * k) ≥ 1), recall, precision, MRR and MAP all have a zero numerator then, and a positive
   * denominator when every k is positive. Most instances of a run miss at some level, and
   * their values are left at the blank column's 0s.
   */
  zeroWithoutHits: boolean;
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

/** The span level's per-instance values and pooled counts, filled one instance at a time. */
class SpanTotals {
  readonly recall: Float64Array;
  readonly precision: Float64Array;
  readonly tightness: Float64Array;
  private gold = 0;
  private predicted = 0;
  private overlap = 0;
  private tightSum = 0;
  private tightCount = 0;
  private included = 0;
  private tightIncluded = 0;

  constructor(instances: number) {
    this.recall = new Float64Array(instances).fill(Number.NaN);
    this.precision = new Float64Array(instances).fill(Number.NaN);
    this.tightness = new Float64Array(instances).fill(Number.NaN);
  }

  add(i: number, overlap: SpanOverlap): void {
    this.included += 1;
    this.recall[i] = spanCoverageRecall(overlap) ?? Number.NaN;
    this.precision[i] = spanPrecision(overlap);
    const tight = spanTightness(overlap);
    if (tight !== undefined) {
      this.tightness[i] = tight;
      this.tightIncluded += 1;
    }
    this.gold += overlap.goldLines;
    this.predicted += overlap.predictedLines;
    this.overlap += overlap.overlapLines;
    this.tightSum += overlap.tightnessSum;
    this.tightCount += overlap.tightnessCount;
  }

  report(preset: Preset, instances: number, into: Record<string, MetricValue>): void {
    const { included } = this;
    const add = (key: string, definition: string, value: number, n: number, perInstance?: Float64Array) => {
      into[key] = {
        key,
        definition: `${preset.name}: ${definition}`,
        value,
        n,
        excluded: instances - n,
        ...(perInstance ? { perInstance } : {}),
      };
    };
    add(
      "span.coverageRecall",
      "macro mean of |L(P)∩L(G)|/|L(G)| over instances with gold spans",
      meanIgnoringNaN(this.recall),
      included,
      this.recall,
    );
    add(
      "span.precision",
      "macro mean of |L(P)∩L(G)|/|L(P)| (0 when P is empty)",
      meanIgnoringNaN(this.precision),
      included,
      this.precision,
    );
    add(
      "span.tightness",
      "macro mean of per-instance average best IoU over overlapped gold spans (instances with none overlapped excluded)",
      meanIgnoringNaN(this.tightness),
      this.tightIncluded,
      this.tightness,
    );
    add(
      "span.coverageRecallMicro",
      "pooled Σ|L(P)∩L(G)| / Σ|L(G)|",
      this.gold === 0 ? 0 : this.overlap / this.gold,
      included,
    );
    add(
      "span.precisionMicro",
      "pooled Σ|L(P)∩L(G)| / Σ|L(P)|",
      this.predicted === 0 ? 0 : this.overlap / this.predicted,
      included,
    );
    add(
      "span.tightnessMicro",
      "pooled mean best IoU over all overlapped gold spans",
      this.tightCount === 0 ? 0 : this.tightSum / this.tightCount,
      included,
    );
  }
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
  if (metric === "recall" && preset.recallDenominator === "min-gold-max-k")
    words = "recall@k = |P_k ∩ G| / min(|G|, largest k of the level)";
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
