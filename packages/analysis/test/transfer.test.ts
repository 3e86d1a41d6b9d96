import { describe, expect, it } from "vitest";
import {
  armVsBaseline,
  pairWithBaseline,
  qualityBins,
  SWEEP_THRESHOLDS,
  thresholdSweep,
  type TransferObservation,
} from "../src/index.js";

// Six tasks of two repositories under one seed. The baseline solves a-1, a-2, b-1; the
// findings arm (always injected) solves a-1, a-3, b-1, b-2, b-3 with these judge composites:
// a-1 4.33, a-2 1.67, a-3 4.67, b-1 3.0, b-2 4.0, b-3 2.33.
const ids = ["a__x-1", "a__x-2", "a__x-3", "b__y-1", "b__y-2", "b__y-3"];
const baselineSolved = new Set(["a__x-1", "a__x-2", "b__y-1"]);
const findingsSolved = new Set(["a__x-1", "a__x-3", "b__y-1", "b__y-2", "b__y-3"]);
const composites: Record<string, number> = {
  "a__x-1": 13 / 3,
  "a__x-2": 5 / 3,
  "a__x-3": 14 / 3,
  "b__y-1": 3,
  "b__y-2": 4,
  "b__y-3": 7 / 3,
};
const observations: TransferObservation[] = [
  ...ids.map((id) => ({
    instanceId: id,
    seed: 1,
    arm: "single",
    resolved: baselineSolved.has(id),
    tokens: { localization: 1000, total: 3000 },
    injected: false,
  })),
  ...ids.map((id) => ({
    instanceId: id,
    seed: 1,
    arm: "findings",
    resolved: findingsSolved.has(id),
    tokens: { localization: 600, total: 2400 },
    composite: composites[id],
    injected: true,
  })),
];

describe("the transfer analysis", () => {
  it("an arm against the baseline: rates, McNemar's b and c with the exact p, tokens in SHERLOC's form", () => {
    const result = armVsBaseline(observations, { arm: "findings", baseline: "single", resamples: 2000, seed: 3 });
    expect(result).toMatchObject({ n: 6, baselineOnly: 1, armOnly: 3, injected: 6, framework: "pooled" });
    expect(result.armRate).toBeCloseTo(5 / 6, 12);
    expect(result.baselineRate).toBeCloseTo(3 / 6, 12);
    expect(result.differencePoints).toBeCloseTo((100 * 2) / 6, 10);
    // Exact McNemar, b = 1, c = 3: 2 · P(X ≤ 1), X ~ Bin(4, ½) = 2 · 5/16.
    expect(result.p).toBeCloseTo(0.625, 12);
    // Every task spent 40 % fewer localization tokens and 20 % fewer in all.
    expect(result.tokens.localization).toEqual({ baseline: 6000, arm: 3600, relativeChangePercent: -40 });
    expect(result.tokens.total).toEqual({ baseline: 18000, arm: 14400, relativeChangePercent: -20 });
    // Two repositories: the bootstrap resamples them; its interval holds the estimate.
    expect(result.interval.unit).toBe("cluster");
    expect(result.interval.lower).toBeLessThanOrEqual(result.differencePoints);
    expect(result.interval.upper).toBeGreaterThanOrEqual(result.differencePoints);
  });

  it("quality bins: the injected tasks by composite, the arm's rate against the baseline's on the same tasks", () => {
    expect(qualityBins(observations, { arm: "findings", baseline: "single" })).toEqual([
      { bin: "≤ 2", n: 1, armRate: 0, baselineRate: 1 },
      { bin: "2–3", n: 2, armRate: 1, baselineRate: 0.5 },
      { bin: "3–4", n: 1, armRate: 1, baselineRate: 0 },
      { bin: "> 4", n: 2, armRate: 1, baselineRate: 0.5 },
    ]);
  });

  it("the threshold sweep rebuilds the judged arm: at 4.0, a-1, a-3 and b-2 injected; at 1 the findings arm; above 5 the baseline", () => {
    const sweep = thresholdSweep(observations, { findingsArm: "findings", baseline: "single" });
    expect(sweep.map((point) => point.threshold)).toEqual(SWEEP_THRESHOLDS);
    const at = (t: number) => sweep.find((point) => point.threshold === t)!;
    // t = 4: a-1 (findings: solved), a-3 (solved), b-2 (solved) injected; the rest keep the baseline's
    // outcome: a-2 solved, b-1 solved, b-3 not. Judged solves 5; the baseline 3; judged only: a-3, b-2.
    expect(at(4)).toMatchObject({ n: 6, injectedShare: 0.5, judgedOnly: 2, baselineOnly: 0, p: 0.5 });
    expect(at(4).judgedRate).toBeCloseTo(5 / 6, 12);
    expect(at(1)).toMatchObject({ injectedShare: 1, judgedOnly: 3, baselineOnly: 1 });
    expect(at(5)).toMatchObject({ injectedShare: 0, judgedOnly: 0, baselineOnly: 0, differencePoints: 0 });
  });

  it("a judged arm actually run at 4.0 agrees with the sweep's point at 4.0 when the fixer is the same", () => {
    const judged = observations
      .filter((o) => o.arm === "findings")
      .map((o) => {
        const passes = (o.composite ?? 0) >= 4;
        const base = observations.find((b) => b.arm === "single" && b.instanceId === o.instanceId)!;
        return { ...o, arm: "judged", injected: passes, resolved: passes ? o.resolved : base.resolved };
      });
    const run = armVsBaseline([...observations, ...judged], { arm: "judged", baseline: "single", resamples: 100 });
    const point = thresholdSweep(observations, { findingsArm: "findings", baseline: "single", thresholds: [4] })[0]!;
    expect(run.armRate).toBe(point.judgedRate);
    expect([run.baselineOnly, run.armOnly, run.p]).toEqual([point.baselineOnly, point.judgedOnly, point.p]);
    expect(run.injected).toBe(3);
  });

  it("pairs per framework or pooled; an arm observed twice on one task is an error", () => {
    const twoFrameworks = [
      ...observations,
      ...observations.map((o) => ({ ...o, framework: "mini-swe-agent", resolved: !o.resolved })),
    ];
    expect(pairWithBaseline(twoFrameworks, { arm: "findings", baseline: "single" })).toHaveLength(12);
    expect(
      pairWithBaseline(twoFrameworks, { arm: "findings", baseline: "single", framework: "mini-swe-agent" }),
    ).toHaveLength(6);
    expect(() =>
      pairWithBaseline([...observations, observations[0]!], { arm: "findings", baseline: "single" }),
    ).toThrow("two observations of arm single on a__x-1, seed 1, framework loclab");
    expect(() => armVsBaseline(observations, { arm: "oracle", baseline: "single" })).toThrow(
      "arm oracle and the baseline single share no task",
    );
  });
});
