import { exactMcNemar } from "@loclab/statistics";
import { pairWithBaseline, type TransferObservation } from "./transfer-observation.js";

/** The judged arm at one threshold, rebuilt from the findings arm, the baseline and the cached judgements. */
export interface SweepPoint {
  threshold: number;
  n: number;
  /** Share of the paired observations whose finding passes (composite ≥ threshold): injected. */
  injectedShare: number;
  judgedRate: number;
  baselineRate: number;
  differencePoints: number;
  baselineOnly: number;
  judgedOnly: number;
  p: number;
}

/** 1, 1.25, …, 5: the grid. */
export const SWEEP_THRESHOLDS: readonly number[] = Array.from({ length: 17 }, (_, i) => 1 + i * 0.25);

/**
 * The threshold sweep, pure: at each threshold t, the `judged` arm's outcome on a task is the
 * findings arm's when the judge's composite of its finding is ≥ t (injected) and the baseline's
 * otherwise (the judged arm then runs the baseline prompt), against the baseline on the same
 * task × seed × framework. No new runs and no new judge calls: the findings arm was always
 * injected, and the composites are the cached judgements. An observation of the findings arm
 * without a composite (no finding, or the judge failed: the judged arm falls back to the
 * baseline) counts as not injected at every threshold.
 */
export function thresholdSweep(
  observations: readonly TransferObservation[],
  options: { findingsArm: string; baseline: string; framework?: string; thresholds?: readonly number[] },
): SweepPoint[] {
  const pairs = pairWithBaseline(observations, { ...options, arm: options.findingsArm });
  if (pairs.length === 0)
    throw new Error(`arm ${options.findingsArm} and the baseline ${options.baseline} share no task`);
  return (options.thresholds ?? SWEEP_THRESHOLDS).map((threshold) => {
    let injected = 0;
    let judged = 0;
    let baseline = 0;
    let baselineOnly = 0;
    let judgedOnly = 0;
    for (const pair of pairs) {
      const passes = pair.arm.composite !== undefined && pair.arm.composite >= threshold;
      if (passes) injected += 1;
      const j = passes ? pair.arm.resolved : pair.baseline.resolved;
      const b = pair.baseline.resolved;
      if (j) judged += 1;
      if (b) baseline += 1;
      if (b && !j) baselineOnly += 1;
      if (j && !b) judgedOnly += 1;
    }
    const n = pairs.length;
    return {
      threshold,
      n,
      injectedShare: injected / n,
      judgedRate: judged / n,
      baselineRate: baseline / n,
      differencePoints: ((judged - baseline) / n) * 100,
      baselineOnly,
      judgedOnly,
      p: exactMcNemar({ b: baselineOnly, c: judgedOnly }).p,
    };
  });
}
