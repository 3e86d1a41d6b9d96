import fc from "fast-check";
import { sampleStandardDeviation } from "simple-statistics";
import { describe, expect, it } from "vitest";
import { clusterOfInstanceId, clusteredStandardError, pairedBootstrap, seededRandom } from "../src/index.js";

describe("clusterOfInstanceId", () => {
  it("drops the trailing issue number only", () => {
    expect(clusterOfInstanceId("django__django-11099")).toBe("django__django");
    expect(clusterOfInstanceId("pylint-dev__pylint-7080")).toBe("pylint-dev__pylint");
    expect(clusterOfInstanceId("scikit-learn__scikit-learn-13142")).toBe("scikit-learn__scikit-learn");
  });

  it("refuses an id without an issue number", () => {
    expect(() => clusterOfInstanceId("django__django")).toThrow(
      'clusterOfInstanceId requires an id like "owner__repo-123", got "django__django"',
    );
    expect(() => clusterOfInstanceId("-12")).toThrow(Error);
  });
});

describe("clusteredStandardError (docs/definitions.md §7)", () => {
  it("hand value: SE = (1/n)·√(C/(C−1)·Σ_c (Σ_{i∈c}(s_i − s̄))²)", () => {
    // s̄ = 0.75; cluster sums: a −0.5, b 0.25, c 0.25 → √(3/2 · 0.375)/4 = 0.1875.
    expect(clusteredStandardError({ values: [1, 0, 1, 1], clusters: ["a", "a", "b", "c"] })).toEqual({
      mean: 0.75,
      standardError: 0.1875,
      n: 4,
      clusterCount: 3,
    });
  });

  it("clusters by repository from instance ids by default", () => {
    const instanceIds = ["django__django-1", "django__django-2", "sympy__sympy-3", "astropy__astropy-4"];
    expect(clusteredStandardError({ values: [1, 0, 1, 1], instanceIds })).toEqual(
      clusteredStandardError({ values: [1, 0, 1, 1], clusters: ["d", "d", "s", "a"] }),
    );
  });

  it("one instance per cluster gives the textbook SD/√n", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 2, maxLength: 60 }),
        (values) => {
          const clusters = values.map((_, i) => `c${i}`);
          const expected = sampleStandardDeviation(values) / Math.sqrt(values.length);
          expect(clusteredStandardError({ values, clusters }).standardError).toBeCloseTo(expected, 10);
        },
      ),
    );
  });

  it("accepts typed arrays and names what it refuses", () => {
    expect(
      clusteredStandardError({ values: Uint8Array.from([1, 0, 1, 1]), clusters: ["a", "a", "b", "c"] }).standardError,
    ).toBe(0.1875);
    expect(() => clusteredStandardError({ values: [], clusters: [] })).toThrow(
      "clusteredStandardError requires at least one value",
    );
    expect(() => clusteredStandardError({ values: [1, 0], clusters: ["a", "a"] })).toThrow(
      "clusteredStandardError requires at least 2 clusters, got 1",
    );
    expect(() => clusteredStandardError({ values: [1, 0], clusters: ["a"] })).toThrow(
      "clusteredStandardError requires clusters to have one entry per value: 1 for 2 values",
    );
    expect(() => clusteredStandardError({ values: [1, Number.NaN], clusters: ["a", "b"] })).toThrow(
      "clusteredStandardError requires finite values, got NaN at index 1",
    );
    expect(() => clusteredStandardError({ values: [1, 0] })).toThrow(
      "clusteredStandardError requires clusters or instanceIds",
    );
  });
});

describe("seededRandom (xoshiro128**)", () => {
  it("same seed, same stream; different seeds, different streams", () => {
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 8 }, () => random.nextUint32());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(draw(-1)).not.toEqual(draw(0));
    expect(draw(2 ** 40)).not.toEqual(draw(0));
  });

  it("nextBelow is uniform (chi-square over 10 bins, 100,000 draws, p > 1e-4) and nextFloat in [0, 1)", () => {
    const random = seededRandom(2024);
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i += 1) {
      const k = random.nextBelow(10);
      counts[k] = (counts[k] as number) + 1;
    }
    const chiSquare = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chiSquare).toBeLessThan(33.7); // χ²(9) upper 1e-4 quantile
    for (let i = 0; i < 1000; i += 1) {
      const u = random.nextFloat();
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
    }
  });

  it("refuses a seed that is not a safe integer", () => {
    expect(() => seededRandom(1.5)).toThrow("seededRandom requires seed to be a safe integer, got 1.5");
  });
});

const arbPaired = fc.integer({ min: 1, max: 60 }).chain((n) =>
  fc.record({
    a: fc.array(fc.constantFrom(0, 1), { minLength: n, maxLength: n }),
    b: fc.array(fc.constantFrom(0, 1), { minLength: n, maxLength: n }),
  }),
);

describe("pairedBootstrap", () => {
  it("is determined by its seed (same seed ⇒ same result, bit for bit)", () => {
    fc.assert(
      fc.property(arbPaired, fc.integer(), ({ a, b }, seed) => {
        const one = pairedBootstrap({ a, b, resamples: 200, seed, keepDistribution: true });
        const two = pairedBootstrap({ a, b, resamples: 200, seed, keepDistribution: true });
        expect(two).toEqual(one);
        const clusters = a.map((_, i) => `r${i % 4}`);
        expect(pairedBootstrap({ a, b, resamples: 100, seed, clusters })).toEqual(
          pairedBootstrap({ a, b, resamples: 100, seed, clusters }),
        );
      }),
      { numRuns: 100 },
    );
  });

  it("the estimate is mean(a) − mean(b); the percentile interval is ordered and inside [min d, max d]", () => {
    fc.assert(
      fc.property(arbPaired, fc.integer(), ({ a, b }, seed) => {
        const result = pairedBootstrap({ a, b, resamples: 300, seed, keepDistribution: true });
        const n = a.length;
        const expected = a.reduce<number>((s, x) => s + x, 0) / n - b.reduce<number>((s, x) => s + x, 0) / n;
        expect(result.estimate).toBeCloseTo(expected, 14);
        expect(result.lower).toBeLessThanOrEqual(result.upper);
        expect(result.lower).toBeGreaterThanOrEqual(-1);
        expect(result.upper).toBeLessThanOrEqual(1);
        expect(result.distribution).toHaveLength(300);
        expect(result.unit).toBe("task");
      }),
      { numRuns: 100 },
    );
  });

  it("centres on the estimate and matches the normal-theory width on a large sample", () => {
    // 300 tasks, a solves 90, b solves 60, 30 of them both: d has mean 0.1.
    const a = Array.from({ length: 300 }, (_, i) => (i < 90 ? 1 : 0));
    const b = Array.from({ length: 300 }, (_, i) => (i >= 60 && i < 120 ? 1 : 0));
    const result = pairedBootstrap({ a, b, resamples: 4000, seed: 1 });
    expect(result.estimate).toBeCloseTo(0.1, 14);
    // d ∈ {−1, 0, 1} with P(±1) = 60/300, 30/300: SD(d̄) = √((90/300 − 0.01)/300) ≈ 0.0311.
    const se = Math.sqrt((90 / 300 - 0.01) / 300);
    expect(result.upper - result.lower).toBeGreaterThan(2 * 1.96 * se * 0.9);
    expect(result.upper - result.lower).toBeLessThan(2 * 1.96 * se * 1.1);
  });

  it("resamples whole clusters when clusters are given (wider when outcomes cluster)", () => {
    // Ten repositories of 30 tasks; a beats b on whole repositories at a time.
    const a = Array.from({ length: 300 }, (_, i) => (Math.floor(i / 30) % 3 === 0 ? 1 : 0));
    const b = new Array<number>(300).fill(0);
    const clusters = Array.from({ length: 300 }, (_, i) => `repo${Math.floor(i / 30)}`);
    const byTask = pairedBootstrap({ a, b, resamples: 2000, seed: 5 });
    const byCluster = pairedBootstrap({ a, b, resamples: 2000, seed: 5, clusters });
    expect(byCluster.unit).toBe("cluster");
    expect(byCluster.estimate).toBe(byTask.estimate);
    expect(byCluster.upper - byCluster.lower).toBeGreaterThan(2 * (byTask.upper - byTask.lower));
  });

  it("accepts booleans and typed arrays, and names what it refuses", () => {
    expect(pairedBootstrap({ a: [true, false], b: Uint8Array.from([0, 0]), resamples: 10, seed: 1 }).estimate).toBe(
      0.5,
    );
    expect(() => pairedBootstrap({ a: [1], b: [1, 0], resamples: 10, seed: 1 })).toThrow(
      "pairedBootstrap requires a and b to have the same length, got 1 and 2",
    );
    expect(() => pairedBootstrap({ a: [1], b: [0], resamples: 0, seed: 1 })).toThrow(
      "pairedBootstrap requires resamples to be a positive integer, got 0",
    );
    expect(() => pairedBootstrap({ a: [1], b: [0], resamples: 10, seed: 0.5 })).toThrow(
      "pairedBootstrap requires seed to be a safe integer, got 0.5",
    );
    expect(() => pairedBootstrap({ a: [], b: [], resamples: 10, seed: 1 })).toThrow(
      "pairedBootstrap requires at least one task",
    );
    expect(() => pairedBootstrap({ a: [1, Number.NaN], b: [0, 0], resamples: 10, seed: 1 })).toThrow(
      "pairedBootstrap requires a to hold finite numbers or booleans, got NaN at index 1",
    );
    expect(() => pairedBootstrap({ a: [1, 0], b: [0, 0], resamples: 10, seed: 1, clusters: ["x"] })).toThrow(
      "pairedBootstrap requires clusters to have one label per task: 1 for 2 tasks",
    );
  });
});
