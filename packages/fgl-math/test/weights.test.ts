import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anchorWeights, effectiveSampleSize, fglTaskWeights, solveTemperature, temperedSoftmax } from "../src/index.js";

// FGL's weights (docs/definitions.md §6) against values computed independently: scipy's brentq
// on log τ over a 50-digit mpmath ESS, scipy's softmax, and the anchor rule written again in
// Python (fixtures/generate.py → fixtures/reference.json); hand-derived cases; and a property
// test over random score vectors with ties and ±1e6 spreads.

interface ReferenceCase {
  name: string;
  scores: number[];
  teacher: number | null;
  targetEss: number;
  method: "uniform" | "argmax" | "bisection";
  tau: number | null;
  weights: number[];
  ess: number;
  anchored: number[];
}
const reference = JSON.parse(readFileSync(new URL("../fixtures/reference.json", import.meta.url), "utf8")) as {
  cases: ReferenceCase[];
};

describe("effective sample size and tempered softmax", () => {
  it("hand-derived values", () => {
    expect(effectiveSampleSize([1, 1, 1, 1])).toBe(4);
    expect(effectiveSampleSize([0.5, 0.5, 0, 0])).toBe(2);
    expect(effectiveSampleSize([3, 1])).toBeCloseTo(16 / 10, 15);
    const [quarter, threeQuarters] = temperedSoftmax([0, Math.log(3)], 1);
    expect(quarter).toBeCloseTo(0.25, 15);
    expect(threeQuarters).toBeCloseTo(0.75, 15);
    expect(temperedSoftmax([1, 2, 2], 0)).toEqual([0, 0.5, 0.5]);
    expect(temperedSoftmax([5, -5], Infinity)).toEqual([0.5, 0.5]);
    // No overflow at any scale: the largest term is exactly 1 before normalizing.
    expect(temperedSoftmax([1e6, 0], 1)).toEqual([1, 0]);
    expect(() => effectiveSampleSize([0, 0])).toThrow(/at least one weight/);
    expect(() => temperedSoftmax([Number.NaN], 1)).toThrow(/finite/);
  });

  it("three evenly spaced scores reach ESS 2 at τ = 1 / (2 ln φ): the weights are 1 : φ⁻² : φ⁻⁴", () => {
    // With x = e^(−1/τ), weights ∝ 1, x, x²; ESS = 2 ⇔ (1 + x + x²)² = 2(1 + x² + x⁴) ⇔ x = (3 − √5) / 2 = φ⁻².
    const phi = (1 + Math.sqrt(5)) / 2;
    const solved = solveTemperature([1, 0, -1], { targetEss: 2 });
    expect(solved.method).toBe("bisection");
    expect(solved.tau).toBeCloseTo(1 / (2 * Math.log(phi)), 12);
    expect((solved.weights[1] as number) / (solved.weights[0] as number)).toBeCloseTo(phi ** -2, 12);
    expect(Math.abs(solved.ess - 2)).toBeLessThanOrEqual(1e-12);
  });
});

describe("solveTemperature against scipy / mpmath (fixtures/reference.json)", () => {
  it.each(reference.cases.map((c) => [`${c.name}, n* = ${c.targetEss}`, c] as const))("%s", (_name, c) => {
    const solved = solveTemperature(c.scores, { targetEss: c.targetEss });
    expect(solved.method).toBe(c.method);
    if (c.method === "bisection") {
      expect(Math.abs(solved.tau - (c.tau as number)) / (c.tau as number)).toBeLessThan(1e-7);
      expect(Math.abs(solved.ess - c.targetEss)).toBeLessThanOrEqual(1e-9);
      expect(solved.reached).toBe(true);
    } else expect(solved.tau).toBe(c.method === "uniform" ? Infinity : 0);
    solved.weights.forEach((weight, i) => expect(Math.abs(weight - (c.weights[i] as number))).toBeLessThan(1e-9));
    const anchored = anchorWeights(
      c.scores.map((_, i) => ({
        candidate: `c${i}`,
        weight: solved.weights[i] as number,
        ...(i === c.teacher ? { teacher: true } : {}),
      })),
    );
    anchored.forEach((row, i) => expect(Math.abs(row.weight - (c.anchored[i] as number))).toBeLessThan(1e-9));
  });
});

describe("solveTemperature: property", () => {
  // Scores from a pool that makes ties likely, at scales from 1e-6 to 1e6.
  const scores = fc.integer({ min: 2, max: 64 }).chain((size) =>
    fc.tuple(
      fc.constantFrom(1e-6, 1e-3, 1, 1e3, 1e6),
      fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ min: -1, max: 1, noNaN: true })), {
        minLength: size,
        maxLength: size,
      }),
    ),
  );

  it("reaches n* = 2 to 1e-9 whenever fewer than 2 scores tie for the best and K > 2; else uniform or argmax", () => {
    fc.assert(
      fc.property(scores, ([scale, raw]) => {
        const values = raw.map((value) => value * scale);
        const solved = solveTemperature(values, { targetEss: 2 });
        const max = Math.max(...values);
        const tied = values.filter((value) => value === max).length;
        expect(Math.abs(solved.weights.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-12);
        if (values.length <= 2) expect(solved.method).toBe("uniform");
        else if (tied >= 2) {
          expect(solved.method).toBe("argmax");
          expect(solved.ess).toBe(tied);
        } else {
          expect(solved.method).toBe("bisection");
          expect(Math.abs(solved.ess - 2)).toBeLessThanOrEqual(1e-9);
        }
        // The order of the scores does not matter (beyond rounding in the sums).
        const reversed = solveTemperature([...values].reverse(), { targetEss: 2 });
        expect(reversed.method).toBe(solved.method);
        if (solved.method === "bisection") expect(Math.abs(reversed.tau - solved.tau) / solved.tau).toBeLessThan(1e-6);
      }),
      { numRuns: 400, seed: 15 },
    );
  });

  it("anchored weights sum to 1, at most M + 1 are positive, the teacher gets at least β", () => {
    fc.assert(
      fc.property(scores, fc.nat(), ([scale, raw], pick) => {
        const candidates = raw.map((value, i) => ({
          candidate: `c${i}`,
          score: value * scale,
          ...(i === pick % raw.length ? { teacher: true } : {}),
        }));
        const task = fglTaskWeights(candidates);
        const weights = task.rows.map((row) => row.weight);
        expect(Math.abs(weights.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-12);
        expect(weights.filter((weight) => weight > 0).length).toBeLessThanOrEqual(4);
        expect(task.rows.find((row) => row.teacher)?.weight).toBeGreaterThanOrEqual(0.5);
      }),
      { numRuns: 300, seed: 16 },
    );
  });
});

describe("anchorWeights", () => {
  it("keeps the top M with weight ≥ 0.01 and anchors the teacher", () => {
    const rows = anchorWeights([
      { candidate: "a", weight: 0.5 },
      { candidate: "b", weight: 0.3 },
      { candidate: "t", weight: 0.005, teacher: true },
      { candidate: "c", weight: 0.15 },
      { candidate: "d", weight: 0.045 },
    ]);
    // Kept: a, b, c (0.95 of the weight) share 1 − β = 0.5; t below 0.01 keeps only β.
    expect(rows.map((row) => [row.candidate, row.kept, Number(row.weight.toFixed(12))])).toEqual([
      ["a", true, Number(((0.5 * 0.5) / 0.95).toFixed(12))],
      ["b", true, Number(((0.5 * 0.3) / 0.95).toFixed(12))],
      ["t", false, 0.5],
      ["c", true, Number(((0.5 * 0.15) / 0.95).toFixed(12))],
      ["d", false, 0],
    ]);
  });

  it("a teacher among the kept gets β plus its share; no teacher: the kept share 1; bad input is named", () => {
    expect(
      anchorWeights([
        { candidate: "t", weight: 0.6, teacher: true },
        { candidate: "a", weight: 0.4 },
      ]).map((row) => row.weight),
    ).toEqual([0.5 + 0.3, 0.2]);
    expect(
      anchorWeights([
        { candidate: "a", weight: 0.75 },
        { candidate: "b", weight: 0.25 },
      ]).map((row) => row.weight),
    ).toEqual([0.75, 0.25]);
    expect(() =>
      anchorWeights([
        { candidate: "t", weight: 0.5, teacher: true },
        { candidate: "u", weight: 0.5, teacher: true },
      ]),
    ).toThrow(/2 candidates are marked as the teacher/);
    expect(() => anchorWeights([{ candidate: "a", weight: 2 }])).toThrow(/candidate a: weight 2/);
    expect(() => anchorWeights([{ candidate: "a", weight: 0.5 }], { anchor: 1.5 })).toThrow(/anchor β/);
  });
});
