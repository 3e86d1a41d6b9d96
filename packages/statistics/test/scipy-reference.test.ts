import { describe, expect, it } from "vitest";
import {
  binomialLogPmf,
  binomialTails,
  clopperPearsonInterval,
  clusteredStandardError,
  exactMcNemar,
  holmAdjust,
  normalCdf,
  normalQuantile,
  pairedMinimumDetectableEffect,
  pairedPower,
  pairedSampleSize,
  wilsonInterval,
} from "../src/index.js";
import { logError, reference, relativeError, worst } from "./reference.js";

// Every comparison below is against fixtures/scipy-reference.json (fixtures/generate.py:
// scipy 1.17 and 40-digit mpmath). Tolerance: 1e-10 relative, unless a test says otherwise.
// Logarithms (log p, log pmf) are held to |a − e| ≤ tol·max(1, |e|): near 0 that is the
// relative error of the probability itself.
const TOLERANCE = 1e-10;

describe("exact McNemar against scipy.stats.binom / binomtest (1e-10 relative)", () => {
  it(`p, midP and log p for ${reference.mcnemar.length} tables, b + c from 0 to 10^7`, () => {
    const { error, row } = worst(reference.mcnemar, (r) => {
      const result = exactMcNemar({ b: r.b, c: r.c });
      return [
        relativeError(result.p, r.p),
        relativeError(result.midP, r.midP),
        r.logP === undefined ? 0 : logError(result.logP, r.logP),
      ];
    });
    expect(error, JSON.stringify(row)).toBeLessThan(TOLERANCE);
  });

  it("b + c = 10^6 and 10^7 are covered, with p from ~1e-300 to ~1", () => {
    const large = reference.mcnemar.filter((r) => r.b + r.c >= 10_000_000 - 1);
    expect(large.length).toBeGreaterThan(15);
    expect(Math.min(...large.map((r) => r.p))).toBeLessThan(1e-299);
    expect(large.some((r) => r.p > 0.4 && r.p < 1)).toBe(true);
    expect(reference.mcnemar.filter((r) => r.b + r.c === 1_000_000).length).toBeGreaterThan(10);
  });

  it("against 40-digit mpmath sums: 1e-12 relative (scipy itself is ~8e-12 off at 10^7)", () => {
    const rows = reference.mcnemar.filter((r) => r.pMp !== undefined);
    const { error, row } = worst(rows, (r) => {
      const result = exactMcNemar({ b: r.b, c: r.c });
      return [
        relativeError(result.p, r.pMp as number),
        relativeError(result.midP, r.midPMp as number),
        logError(result.logP, r.logPMp as number),
      ];
    });
    expect(error, JSON.stringify(row)).toBeLessThan(1e-12);
  });
});

describe("binomial tails and log pmf against scipy.stats.binom (1e-10 relative)", () => {
  it(`cdf and sf at ${reference.binomialTails.length} points, n up to 10^7, p from 1e-6 to 1 − 1e-6`, () => {
    const { error, row } = worst(reference.binomialTails, (r) => {
      const tails = binomialTails({ k: r.k, n: r.n, p: r.p });
      return [
        relativeError(tails.cdf, r.cdf),
        relativeError(tails.sf, r.sf),
        logError(tails.logCdf, Math.log(r.cdf)),
        logError(tails.logSf, Math.log(r.sf)),
      ];
    });
    expect(error, JSON.stringify(row)).toBeLessThan(TOLERANCE);
  });

  // scipy's binom.logpmf is ~5e-9 off at n = 10^7, p = 1e-6, so mpmath is the reference here.
  it("log pmf against 40-digit mpmath (1e-14)", () => {
    const { error, row } = worst(reference.binomialTails, (r) => [
      logError(binomialLogPmf({ k: r.k, n: r.n, p: r.p }), r.logPmfMp),
    ]);
    expect(error, JSON.stringify(row)).toBeLessThan(1e-14);
  });
});

describe("normal distribution against scipy.stats.norm and mpmath", () => {
  it("quantile: 1e-10 relative to scipy.stats.norm.ppf and 1e-15 to 40-digit mpmath", () => {
    const rows = reference.normalQuantile;
    expect(worst(rows, (r) => [relativeError(normalQuantile(r.p), r.z)]).error).toBeLessThan(TOLERANCE);
    const { error, row } = worst(rows, (r) => [relativeError(normalQuantile(r.p), r.zMp)]);
    expect(error, JSON.stringify(row)).toBeLessThan(1e-15);
  });

  it("cdf: 1e-10 relative to scipy.stats.norm.cdf (where scipy does not underflow) and 1e-14 to mpmath", () => {
    const rows = reference.normalCdf;
    expect(
      worst(
        rows.filter((r) => r.p > 0),
        (r) => [relativeError(normalCdf(r.z), r.p)],
      ).error,
    ).toBeLessThan(TOLERANCE);
    const { error, row } = worst(
      rows.filter((r) => r.pMp > 1e-300),
      (r) => [relativeError(normalCdf(r.z), r.pMp)],
    );
    expect(error, JSON.stringify(row)).toBeLessThan(1e-14);
  });
});

describe("binomial proportion intervals (1e-10 relative)", () => {
  it(`Wilson against the 40-digit formula, ${reference.intervals.length} cases up to n = 10^6`, () => {
    const { error, row } = worst(reference.intervals, (r) => {
      const { lower, upper } = wilsonInterval({ successes: r.successes, n: r.n, confidence: r.confidence });
      return [relativeError(lower, r.wilson[0]), relativeError(upper, r.wilson[1])];
    });
    expect(error, JSON.stringify(row)).toBeLessThan(TOLERANCE);
  });

  it("Clopper–Pearson against scipy.stats.beta.ppf / beta.isf", () => {
    const { error, row } = worst(reference.intervals, (r) => {
      const { lower, upper } = clopperPearsonInterval({ successes: r.successes, n: r.n, confidence: r.confidence });
      return [relativeError(lower, r.clopperPearson[0]), relativeError(upper, r.clopperPearson[1])];
    });
    expect(error, JSON.stringify(row)).toBeLessThan(TOLERANCE);
  });

  it("Clopper–Pearson against 40-digit mpmath roots where x or n − x ≤ 3 (1e-13; scipy is ~1e-11 off at n = 10^6)", () => {
    const rows = reference.intervals.filter((r) => r.clopperPearsonMp !== undefined);
    expect(rows.length).toBeGreaterThan(200);
    const { error, row } = worst(rows, (r) => {
      const { lower, upper } = clopperPearsonInterval({ successes: r.successes, n: r.n, confidence: r.confidence });
      const [mpLower, mpUpper] = r.clopperPearsonMp as [number, number];
      return [relativeError(lower, mpLower), relativeError(upper, mpUpper)];
    });
    expect(error, JSON.stringify(row)).toBeLessThan(1e-13);
  });
});

describe("Connor (1987) paired power against scipy (1e-10 relative)", () => {
  it("sample size: the real value and its ceiling", () => {
    for (const r of reference.pairedSampleSize) {
      const design = pairedSampleSize({ psi: r.psi, delta: r.delta, alpha: r.alpha, power: r.power });
      expect(relativeError(design.nExact, r.nExact)).toBeLessThan(TOLERANCE);
      expect(design.n).toBe(r.n);
    }
  });

  it("power", () => {
    const { error, row } = worst(reference.pairedPower, (r) => [relativeError(pairedPower(r).power, r.power)]);
    expect(error, JSON.stringify(row)).toBeLessThan(TOLERANCE);
  });

  it("minimum detectable effect (closed form here, scipy.optimize.brentq there)", () => {
    const { error, row } = worst(reference.pairedMinimumDetectableEffect, (r) => [
      relativeError(
        pairedMinimumDetectableEffect({ psi: r.psi, n: r.n, alpha: r.alpha, power: r.power }).delta,
        r.delta,
      ),
    ]);
    expect(error, JSON.stringify(row)).toBeLessThan(TOLERANCE);
  });
});

describe("Holm and clustered standard errors", () => {
  it("Holm equals R's p.adjust algorithm (numpy), exactly", () => {
    for (const r of reference.holm) expect(holmAdjust(r.p)).toEqual(r.adjusted);
  });

  it("clustered SE against exact rational arithmetic (1e-12 relative)", () => {
    for (const r of reference.clusteredStandardError) {
      const result = clusteredStandardError({ values: r.values, clusters: r.clusters });
      expect(relativeError(result.mean, r.mean)).toBeLessThan(1e-12);
      expect(relativeError(result.standardError, r.standardError)).toBeLessThan(1e-12);
    }
  });
});
