import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { binomialTails, exactMcNemar } from "../src/index.js";

/** Exact two-sided p and mid-p for small n from BigInt binomial coefficients (rational arithmetic). */
function exactRational(b: number, c: number): { p: number; midP: number } {
  const n = b + c;
  const m = Math.min(b, c);
  if (n === 0) return { p: 1, midP: 1 };
  let coefficient = 1n;
  let cumulative = 0n;
  let atM = 0n;
  for (let j = 0; j <= m; j += 1) {
    if (j > 0) coefficient = (coefficient * BigInt(n - j + 1)) / BigInt(j);
    cumulative += coefficient;
    if (j === m) atM = coefficient;
  }
  // numerator / 2^n: Number() rounds the integer correctly, and scaling by 2^-n is exact.
  const ratio = (numerator: bigint): number => Number(numerator) * 2 ** -n;
  if (b === c) return { p: 1, midP: 1 - ratio(atM) / 2 };
  return { p: Math.min(1, 2 * ratio(cumulative)), midP: ratio(2n * cumulative - atM) };
}

describe("exactMcNemar: the published FGL Table 4 'vs. base' column (docs/definitions.md §7)", () => {
  it.each([
    [2, 4, "0.69"],
    [2, 5, "0.45"],
    [4, 2, "0.69"],
    [5, 1, "0.22"],
    [5, 5, "1.00"],
    [3, 2, "1.00"],
    [7, 3, "0.34"],
    [6, 2, "0.29"],
  ] as const)("b = %i, c = %i → p = %s", (b, c, published) => {
    expect(exactMcNemar({ b, c }).p.toFixed(2)).toBe(published);
  });
});

describe("exactMcNemar, hand-computed", () => {
  it("2 / 4: p = 2·22/64, mid-p = (2·22 − 15)/64 (Fagerland et al. 2013)", () => {
    const result = exactMcNemar({ b: 2, c: 4 });
    expect(result).toMatchObject({ b: 2, c: 4, n: 6 });
    expect(result.p).toBeCloseTo(44 / 64, 14);
    expect(result.midP).toBeCloseTo(29 / 64, 14);
    expect(result.logP).toBeCloseTo(Math.log(44 / 64), 14);
  });

  it("no discordant pairs: p = mid-p = 1", () => {
    expect(exactMcNemar({ b: 0, c: 0 })).toEqual({ b: 0, c: 0, n: 0, p: 1, midP: 1, logP: 0 });
  });

  it("b = c: p = 1 and mid-p = 1 − ½·P(X = b)", () => {
    expect(exactMcNemar({ b: 5, c: 5 }).p).toBe(1);
    expect(exactMcNemar({ b: 5, c: 5 }).midP).toBeCloseTo(1 - 252 / 1024 / 2, 15);
    expect(exactMcNemar({ b: 1, c: 1 }).midP).toBeCloseTo(0.75, 15);
  });

  it("one discordant pair: p = 1, mid-p = ½", () => {
    expect(exactMcNemar({ b: 0, c: 1 })).toMatchObject({ p: 1, midP: 0.5 });
  });

  it("keeps log p where p underflows (b + c = 10^7, lopsided)", () => {
    const result = exactMcNemar({ b: 4_000_000, c: 6_000_000 });
    expect(result.p).toBe(0);
    expect(result.logP).toBeLessThan(-700);
    expect(Number.isFinite(result.logP)).toBe(true);
    // ln P(X ≤ m) for m far below the mean is ln P(X = m) + ln(1/(1 − ρ)), ρ = m/(n − m).
    expect(result.logP).toBeCloseTo(Math.LN2 + binomialTails({ k: 4_000_000, n: 10_000_000, p: 0.5 }).logCdf, 6);
  });

  it("names the argument it refuses", () => {
    expect(() => exactMcNemar({ b: -1, c: 2 })).toThrow("exactMcNemar requires b to be a non-negative integer, got -1");
    expect(() => exactMcNemar({ b: 1, c: 2.5 })).toThrow(
      "exactMcNemar requires c to be a non-negative integer, got 2.5",
    );
    expect(() => exactMcNemar({ b: Number.NaN, c: 2 })).toThrow(RangeError);
    expect(() => exactMcNemar({ b: "3" as unknown as number, c: 2 })).toThrow('got "3"');
  });
});

describe("exactMcNemar, properties", () => {
  const count = fc.integer({ min: 0, max: 400 });

  it("p and mid-p lie in [0, 1], mid-p ≤ p, and both are symmetric in b and c", () => {
    fc.assert(
      fc.property(count, count, (b, c) => {
        const one = exactMcNemar({ b, c });
        const other = exactMcNemar({ b: c, c: b });
        expect(one.p).toBeGreaterThanOrEqual(0);
        expect(one.p).toBeLessThanOrEqual(1);
        expect(one.midP).toBeGreaterThanOrEqual(0);
        expect(one.midP).toBeLessThanOrEqual(one.p);
        expect(other.p).toBe(one.p);
        expect(other.midP).toBe(one.midP);
        expect(one.logP).toBeLessThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it("equals the exact rational value from BigInt binomial coefficients (1e-13 relative)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), (b, c) => {
        const expected = exactRational(b, c);
        const actual = exactMcNemar({ b, c });
        if (expected.p > 1e-300) expect(Math.abs(actual.p - expected.p) / expected.p).toBeLessThan(1e-13);
        if (expected.midP > 1e-300) expect(Math.abs(actual.midP - expected.midP) / expected.midP).toBeLessThan(1e-13);
      }),
      { numRuns: 300 },
    );
  });

  it("moving one discordant pair toward balance never lowers p", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 2, max: 5000 }), (m, gap) => {
        expect(exactMcNemar({ b: m + 1, c: m + gap - 1 }).p).toBeGreaterThanOrEqual(
          exactMcNemar({ b: m, c: m + gap }).p,
        );
      }),
    );
  });
});
