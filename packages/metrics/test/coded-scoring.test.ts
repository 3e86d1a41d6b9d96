import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BLAGENT,
  COSIL,
  type LineSpan,
  type Preset,
  UNIFIED,
  accAtK,
  averagePrecision,
  dedupeRanking,
  hitAtK,
  locagentPreset,
  moduleRanking,
  precisionAtK,
  prepareGold,
  recallAtK,
  reciprocalRank,
  scorePrepared,
  spanCoverageRecall,
  spanOverlap,
  spanPrecision,
  spanTightness,
  symbolNameOf,
} from "../src/index.js";

// The scorer codes paths and symbols as integers once per run set (issue 18). Here the
// single-metric definitions, applied to the rankings written out as strings the way
// docs/definitions.md §3 derives them, are the reference, for every level, under every
// preset, with repeats, over several runs that share one prepared gold (one interner).
const files = ["a.py", "b/c.py", "b/d.py", "e.py", "f/g/h.py"];
const symbols = ["f", "C", "C.m", "C.__init__", "D.n", "g"];
const arbFunction = fc
  .tuple(fc.constantFrom(...files), fc.constantFrom(...symbols))
  .map(([file, symbol]) => `${file}:${symbol}`);
const arbSpan = fc
  .record({
    path: fc.constantFrom(...files),
    startLine: fc.integer({ min: 1, max: 60 }),
    length: fc.integer({ min: 0, max: 25 }),
  })
  .map(({ path, startLine, length }): LineSpan => ({ path, startLine, endLine: startLine + length }));
const arbGold = fc.record({
  files: fc.uniqueArray(fc.constantFrom(...files), { minLength: 0, maxLength: 3 }),
  functions: fc.array(arbFunction, { maxLength: 4 }),
  spans: fc.array(arbSpan, { maxLength: 4 }),
});
const arbPrediction = fc.record({
  files: fc.array(fc.constantFrom(...files), { maxLength: 8 }),
  functions: fc.array(arbFunction, { maxLength: 8 }),
  locations: fc.array(arbSpan, { maxLength: 6 }),
});

const presetOf: Record<string, Preset> = {
  unified: UNIFIED,
  locagent: locagentPreset([]),
  locagentRepeats: locagentPreset([], { countGoldRepeats: true }),
  blagent: BLAGENT,
  cosil: COSIL,
};

/** The ranking of a level as the definitions state it, in strings. */
function rankingAt(level: string, prediction: { files: string[]; functions: string[] }, preset: Preset): string[] {
  if (preset.emptyFilesMeansMiss && prediction.files.length === 0) return [];
  if (level === "file") return dedupeRanking(prediction.files).ranking;
  if (level === "module") return moduleRanking(prediction.functions);
  let list = prediction.functions;
  if (preset.stripInitSuffix)
    list = list.map((id) => (id.endsWith(".__init__") ? id.slice(0, -".__init__".length) : id));
  if (preset.symbolMatch === "name-only") list = list.map(symbolNameOf);
  return dedupeRanking(list).ranking;
}

describe("the coded scorer agrees with the single-metric definitions", () => {
  for (const [name, base] of Object.entries(presetOf)) {
    it(`at every level and for spans, under ${name}, over runs that share one prepared gold`, () => {
      // Peer presets exclude their own instance lists; here every instance is scored.
      const preset: Preset = { ...base, excludedIds: new Set() };
      fc.assert(
        fc.property(
          fc.array(arbGold, { minLength: 1, maxLength: 6 }),
          fc.array(fc.array(arbPrediction, { minLength: 6, maxLength: 6 }), { minLength: 1, maxLength: 3 }),
          (golds, runs) => {
            const ids = golds.map((_, i) => `i${i}`);
            const gold = new Map(golds.map((g, i) => [`i${i}`, g]));
            const prepared = prepareGold({ instanceIds: ids, gold, preset });
            for (const run of runs) {
              const predictions = new Map(run.slice(0, ids.length).map((p, i) => [`i${i}`, p]));
              const report = scorePrepared(prepared, predictions);
              golds.forEach((g, i) => {
                const prediction = predictions.get(`i${i}`) as (typeof run)[number];
                for (const level of ["file", "module", "function"] as const) {
                  const rule = preset.levels[level];
                  if (!rule) continue;
                  let goldList: string[] =
                    level === "file" ? g.files : level === "module" ? moduleRanking(g.functions) : g.functions;
                  if (level === "function" && preset.symbolMatch === "name-only") goldList = goldList.map(symbolNameOf);
                  const set = new Set(goldList);
                  const ranked = rankingAt(level, prediction, preset);
                  const at = (key: string) => report.metrics[key]?.perInstance?.[i];
                  if (set.size === 0 && preset.excludeEmptyGold) {
                    for (const key of Object.keys(report.metrics).filter((key) => key.startsWith(`${level}.`)))
                      expect(at(key)).toBeNaN();
                    continue;
                  }
                  if (
                    preset.goldSizeCountsRepeats ||
                    preset.recallDenominator !== "gold" ||
                    preset.mapRule !== "gold" ||
                    rule.cutoff !== undefined
                  ) {
                    // Peer-only rules: hit@k, acc@k and precision@k keep their plain definitions.
                    for (const k of rule.ks) {
                      if (report.metrics[`${level}.hit@${k}`])
                        expect(at(`${level}.hit@${k}`)).toBe(set.size === 0 ? 0 : hitAtK(ranked, set, k));
                      if (report.metrics[`${level}.precision@${k}`])
                        expect(at(`${level}.precision@${k}`)).toBe(set.size === 0 ? 0 : precisionAtK(ranked, set, k));
                    }
                    continue;
                  }
                  for (const k of rule.ks) {
                    if (report.metrics[`${level}.hit@${k}`])
                      expect(at(`${level}.hit@${k}`)).toBe(set.size === 0 ? 0 : hitAtK(ranked, set, k));
                    if (report.metrics[`${level}.acc@${k}`])
                      expect(at(`${level}.acc@${k}`)).toBe(set.size === 0 ? 0 : accAtK(ranked, set, k));
                    if (report.metrics[`${level}.recall@${k}`])
                      expect(at(`${level}.recall@${k}`)).toBe(set.size === 0 ? 0 : recallAtK(ranked, set, k));
                    if (report.metrics[`${level}.precision@${k}`])
                      expect(at(`${level}.precision@${k}`)).toBe(set.size === 0 ? 0 : precisionAtK(ranked, set, k));
                  }
                  if (report.metrics[`${level}.mrr`])
                    expect(at(`${level}.mrr`)).toBe(set.size === 0 ? 0 : reciprocalRank(ranked, set));
                  if (report.metrics[`${level}.map`])
                    expect(at(`${level}.map`)).toBeCloseTo(set.size === 0 ? 0 : averagePrecision(ranked, set), 14);
                }
                if (preset.spans) {
                  const recall = report.metrics["span.coverageRecall"]?.perInstance?.[i];
                  if (g.spans.length === 0) expect(recall).toBeNaN();
                  else {
                    const overlap = spanOverlap(prediction.locations, g.spans);
                    expect(recall).toBe(spanCoverageRecall(overlap));
                    expect(report.metrics["span.precision"]?.perInstance?.[i]).toBe(spanPrecision(overlap));
                    const tightness = spanTightness(overlap);
                    if (tightness === undefined) expect(report.metrics["span.tightness"]?.perInstance?.[i]).toBeNaN();
                    else expect(report.metrics["span.tightness"]?.perInstance?.[i]).toBeCloseTo(tightness, 14);
                  }
                }
              });
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  }

  it("names a bad predicted span, as the reference does", () => {
    const prepared = prepareGold({
      instanceIds: ["i0"],
      gold: new Map([["i0", { files: ["a.py"], spans: [{ path: "a.py", startLine: 1, endLine: 3 }] }]]),
    });
    expect(() =>
      scorePrepared(
        prepared,
        new Map([["i0", { files: ["a.py"], locations: [{ path: "a.py", startLine: 5, endLine: 2 }] }]]),
      ),
    ).toThrow("invalid span a.py:5-2");
  });
});
