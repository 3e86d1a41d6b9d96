import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  UNIFIED,
  accAtK,
  averagePrecision,
  hitAtK,
  precisionAtK,
  recallAtK,
  reciprocalRank,
  scoreLocalization,
} from "../src/index.js";

// scoreLocalization reads every value off one rank profile per instance; the single-metric
// functions are the definitions. On random rankings the two must agree exactly.
const items = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"];
const arbInstance = fc.record({
  gold: fc.uniqueArray(fc.constantFrom(...items), { minLength: 1, maxLength: 5 }),
  ranked: fc.uniqueArray(fc.constantFrom(...items), { maxLength: 12 }),
});

describe("scoreLocalization agrees with the single-metric definitions", () => {
  it("for every file-level metric and k, per instance", () => {
    fc.assert(
      fc.property(fc.array(arbInstance, { minLength: 1, maxLength: 8 }), (instances) => {
        const ids = instances.map((_, i) => `i${i}`);
        const report = scoreLocalization({
          instanceIds: ids,
          gold: new Map(instances.map((instance, i) => [`i${i}`, { files: instance.gold }])),
          predictions: new Map(instances.map((instance, i) => [`i${i}`, { files: instance.ranked }])),
          preset: { ...UNIFIED, spans: false },
        });
        instances.forEach(({ gold, ranked }, i) => {
          const set = new Set(gold);
          for (const k of [1, 3, 5, 10]) {
            expect(report.metrics[`file.hit@${k}`]?.perInstance?.[i]).toBe(hitAtK(ranked, set, k));
            expect(report.metrics[`file.acc@${k}`]?.perInstance?.[i]).toBe(accAtK(ranked, set, k));
            expect(report.metrics[`file.recall@${k}`]?.perInstance?.[i]).toBe(recallAtK(ranked, set, k));
            expect(report.metrics[`file.precision@${k}`]?.perInstance?.[i]).toBe(precisionAtK(ranked, set, k));
          }
          expect(report.metrics["file.mrr"]?.perInstance?.[i]).toBe(reciprocalRank(ranked, set));
          expect(report.metrics["file.map"]?.perInstance?.[i]).toBeCloseTo(averagePrecision(ranked, set), 14);
        });
      }),
      { numRuns: 300 },
    );
  });
});
