import { describe, expect, it } from "vitest";
import {
  accAtK,
  averagePrecision,
  dedupeRanking,
  hitAtK,
  precisionAtK,
  recallAtK,
  reciprocalRank,
} from "../src/index.js";

// Hand-computed cases: gold {a, b, c}; prediction [x, a, y, b, z, c].
const gold = new Set(["a", "b", "c"]);
const ranked = ["x", "a", "y", "b", "z", "c"];

describe("ranking metrics (docs/definitions.md §3)", () => {
  it("hit@k", () => {
    expect([1, 2, 3, 6].map((k) => hitAtK(ranked, gold, k))).toEqual([0, 1, 1, 1]);
  });

  it("acc@k needs min(|G|, k) gold items in the top k", () => {
    expect([1, 2, 4, 5, 6].map((k) => accAtK(ranked, gold, k))).toEqual([0, 0, 0, 0, 1]);
    expect(accAtK(["a", "b"], gold, 2)).toBe(1); // k < |G|: the top 2 are both gold
    expect(accAtK(["a", "x"], gold, 2)).toBe(0);
    expect(accAtK(["a"], new Set(["a"]), 1)).toBe(1);
    expect(accAtK([], new Set(), 1)).toBe(0);
  });

  it("recall@k over |G| or a given denominator", () => {
    expect([1, 2, 4, 6].map((k) => recallAtK(ranked, gold, k))).toEqual([0, 1 / 3, 2 / 3, 1]);
    expect(recallAtK(ranked, gold, 2, { denominator: 2 })).toBe(0.5);
    expect(recallAtK(ranked, new Set(), 2)).toBe(0);
  });

  it("precision@k over k, even when fewer than k are predicted", () => {
    expect(precisionAtK(ranked, gold, 4)).toBe(0.5);
    expect(precisionAtK(["a"], gold, 5)).toBe(0.2);
  });

  it("reciprocal rank, with a cutoff", () => {
    expect(reciprocalRank(ranked, gold)).toBe(0.5);
    expect(reciprocalRank(["x", "y", "a"], gold, { cutoff: 2 })).toBe(0);
    expect(reciprocalRank([], gold)).toBe(0);
  });

  it("average precision = (1/|G|) Σ precision@r at gold ranks", () => {
    expect(averagePrecision(ranked, gold)).toBeCloseTo((1 / 2 + 2 / 4 + 3 / 6) / 3, 15);
    expect(averagePrecision(ranked, gold, { cutoff: 4 })).toBeCloseTo((1 / 2 + 2 / 4) / 3, 15);
    // LocAgent's MAP@k divides by k.
    expect(averagePrecision(ranked, gold, { cutoff: 4, denominator: 4 })).toBeCloseTo((1 / 2 + 2 / 4) / 4, 15);
  });

  it("a repeated item counts once", () => {
    const repeated = ["a", "a", "a", "b"];
    expect(recallAtK(repeated, gold, 3)).toBe(1 / 3);
    expect(precisionAtK(repeated, gold, 3)).toBe(1 / 3);
    expect(averagePrecision(repeated, gold)).toBeCloseTo((1 + 2 / 4) / 3, 15);
    expect(dedupeRanking(repeated)).toEqual({ ranking: ["a", "b"], removed: 2 });
  });

  it("refuses a k that is not a positive integer", () => {
    expect(() => hitAtK(ranked, gold, 0)).toThrow("hitAtK requires k to be a positive integer, got 0");
    expect(() => accAtK(ranked, gold, 1.5)).toThrow(RangeError);
  });
});
