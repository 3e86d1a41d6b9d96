import fc from "fast-check";
import { probit } from "simple-statistics";
import { describe, expect, it } from "vitest";
import { binomialTails, clopperPearsonInterval, normalCdf, normalQuantile, wilsonInterval } from "../src/index.js";

describe("normal quantile and CDF", () => {
  it("textbook values (1e-15 relative)", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 15);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(1.5)).toBeNaN();
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(-Infinity)).toBe(0);
    expect(normalCdf(Infinity)).toBe(1);
  });

  it("why not simple-statistics' probit: it is ~1e-4 off at 0.975, far from 1e-10", () => {
    expect(Math.abs(probit(0.975) - 1.959963984540054)).toBeGreaterThan(1e-4);
  });

  // Round trip over p from 1e-300 to 1: Φ(Φ⁻¹(p)) = p up to the conditioning of Φ at z,
  // |dΦ/Φ| ≈ |z|·|dz|, i.e. a few ulps times 1 + z² (Φ itself is good to ~2e-15 near z = −1,
  // where ½ + ½·erf cancels by up to 7×).
  it("Φ(Φ⁻¹(p)) = p within 4e-15·(1 + z²) relative, and Φ⁻¹ is increasing", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -690, max: 0, noNaN: true }),
        fc.double({ min: -690, max: 0, noNaN: true }),
        (logP, logQ) => {
          const p = Math.exp(logP);
          fc.pre(p > 0 && p < 1);
          const z = normalQuantile(p);
          expect(Math.abs(normalCdf(z) - p) / p).toBeLessThan(4e-15 * (1 + z * z));
          const q = Math.exp(logQ);
          if (p < q) expect(z).toBeLessThanOrEqual(normalQuantile(q));
          expect(normalQuantile(1 - p)).toBeCloseTo(-normalQuantile(1 - (1 - p)), 12);
        },
      ),
      { numRuns: 500 },
    );
  });
});

const arbProportion = fc.integer({ min: 1, max: 5000 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    successes: fc.integer({ min: 0, max: n }),
    confidence: fc.constantFrom(0.5, 0.8, 0.9, 0.95, 0.99, 0.999),
  }),
);

describe("Wilson interval", () => {
  it("hand value: 8 of 300 at 95 %", () => {
    const { lower, upper } = wilsonInterval({ successes: 8, n: 300 });
    expect(lower).toBeCloseTo(0.013573069808647, 14);
    expect(upper).toBeCloseTo(0.05172894295059, 14);
  });

  it("contains the point estimate, lies in [0, 1], and its ends solve the score equation", () => {
    fc.assert(
      fc.property(arbProportion, ({ successes, n, confidence }) => {
        const { lower, upper } = wilsonInterval({ successes, n, confidence });
        const estimate = successes / n;
        expect(lower).toBeGreaterThanOrEqual(0);
        expect(upper).toBeLessThanOrEqual(1);
        expect(lower).toBeLessThanOrEqual(estimate);
        expect(upper).toBeGreaterThanOrEqual(estimate);
        const z = normalQuantile(1 - (1 - confidence) / 2);
        for (const p of [lower, upper]) {
          if (p === 0 || p === 1) continue;
          // (x/n − p)² = z²·p(1 − p)/n at both ends.
          expect((estimate - p) ** 2).toBeCloseTo((z * z * p * (1 - p)) / n, 12);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("x = 0 and x = n reach the ends exactly", () => {
    expect(wilsonInterval({ successes: 0, n: 10 }).lower).toBe(0);
    expect(wilsonInterval({ successes: 10, n: 10 }).upper).toBe(1);
  });

  it("names the argument it refuses", () => {
    expect(() => wilsonInterval({ successes: 3, n: 0 })).toThrow(
      "wilsonInterval requires n to be a positive integer, got 0",
    );
    expect(() => wilsonInterval({ successes: 11, n: 10 })).toThrow(
      "wilsonInterval requires successes ≤ n, got successes = 11, n = 10",
    );
    expect(() => wilsonInterval({ successes: 1, n: 10, confidence: 95 })).toThrow(
      "wilsonInterval requires confidence to be a number strictly between 0 and 1, got 95",
    );
  });
});

describe("Clopper–Pearson interval", () => {
  it("closed forms at the ends: x = 0 gives [0, 1 − (α/2)^(1/n)], x = n gives [(α/2)^(1/n), 1]", () => {
    expect(clopperPearsonInterval({ successes: 0, n: 10 })).toEqual({
      lower: 0,
      upper: expect.closeTo(1 - 0.025 ** (1 / 10), 14) as unknown as number,
    });
    expect(clopperPearsonInterval({ successes: 10, n: 10 }).lower).toBeCloseTo(0.025 ** (1 / 10), 14);
    expect(clopperPearsonInterval({ successes: 10, n: 10 }).upper).toBe(1);
  });

  it("each end leaves α/2 in the binomial tail beyond x (1e-12 relative), and holds x/n", () => {
    fc.assert(
      fc.property(arbProportion, ({ successes: x, n, confidence }) => {
        const { lower, upper } = clopperPearsonInterval({ successes: x, n, confidence });
        const tail = (1 - confidence) / 2;
        expect(lower).toBeLessThanOrEqual(x / n);
        expect(upper).toBeGreaterThanOrEqual(x / n);
        if (x > 0) {
          const atLower = binomialTails({ k: x - 1, n, p: lower }).sf; // P(X ≥ x | lower)
          expect(Math.abs(atLower - tail) / tail).toBeLessThan(1e-12);
        }
        if (x < n && upper < 1 - 1e-3) {
          const atUpper = binomialTails({ k: x, n, p: upper }).cdf; // P(X ≤ x | upper)
          expect(Math.abs(atUpper - tail) / tail).toBeLessThan(1e-12);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("is wider than Wilson at small n (it is conservative)", () => {
    const cp = clopperPearsonInterval({ successes: 2, n: 20 });
    const wilson = wilsonInterval({ successes: 2, n: 20 });
    expect(cp.upper - cp.lower).toBeGreaterThan(wilson.upper - wilson.lower);
  });

  it("names the argument it refuses", () => {
    expect(() => clopperPearsonInterval({ successes: -1, n: 10 })).toThrow(
      "clopperPearsonInterval requires successes to be a non-negative integer, got -1",
    );
    expect(() => clopperPearsonInterval({ successes: 1, n: 10, confidence: 1 })).toThrow(RangeError);
  });
});
