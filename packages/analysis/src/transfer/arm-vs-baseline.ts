import { clusterOfInstanceId, exactMcNemar, pairedBootstrap } from "@loclab/statistics";
import { pairWithBaseline, type TransferObservation } from "./transfer-observation.js";

/** Tokens of one kind summed over the paired tasks, and the arm's change in SHERLOC's form. */
export interface TokenChange {
  baseline: number;
  arm: number;
  /** (arm − baseline) / baseline, in percent (SHERLOC: −36.7 % localization, −23.1 % total); null when the baseline spent none. */
  relativeChangePercent: number | null;
}

/** One arm against the baseline on their shared tasks (docs/definitions.md §9, "the transfer analysis"). */
export interface ArmVsBaseline {
  arm: string;
  baseline: string;
  /** `pooled` when every framework is pooled. */
  framework: string;
  /** Paired task × seed × framework observations. */
  n: number;
  armRate: number;
  baselineRate: number;
  /** armRate − baselineRate, in points. */
  differencePoints: number;
  /** Solved by the baseline only (McNemar's b) and by the arm only (c); exact McNemar p. */
  baselineOnly: number;
  armOnly: number;
  p: number;
  /** Paired bootstrap interval of the difference (points), clustered by repository when the tasks span two or more. */
  interval: { lower: number; upper: number; confidence: number; unit: "task" | "cluster" };
  tokens: { localization: TokenChange; total: TokenChange };
  /** Of the arm's observations, those injected (when the arm records it). */
  injected: number | null;
}

function change(baseline: number, arm: number): TokenChange {
  return { baseline, arm, relativeChangePercent: baseline === 0 ? null : ((arm - baseline) / baseline) * 100 };
}

/**
 * An arm's transfer against the baseline, pure: on the task × seed × framework pairs both have,
 * the resolve rates and their difference, the exact McNemar test, a paired bootstrap interval
 * of the difference resampling repositories (`clusterOfInstanceId`; tasks when all are of one
 * repository), and the localization and total tokens with their relative change. Errors: no
 * shared observation (nothing to compare), and those of `pairWithBaseline`.
 */
export function armVsBaseline(
  observations: readonly TransferObservation[],
  options: {
    arm: string;
    baseline: string;
    framework?: string;
    resamples?: number;
    seed?: number;
    confidence?: number;
  },
): ArmVsBaseline {
  const pairs = pairWithBaseline(observations, options);
  if (pairs.length === 0)
    throw new Error(
      `arm ${options.arm} and the baseline ${options.baseline} share no task${options.framework ? ` under ${options.framework}` : ""}`,
    );
  const a = pairs.map((pair) => (pair.arm.resolved ? 1 : 0));
  const b = pairs.map((pair) => (pair.baseline.resolved ? 1 : 0));
  const baselineOnly = pairs.filter((pair) => pair.baseline.resolved && !pair.arm.resolved).length;
  const armOnly = pairs.filter((pair) => pair.arm.resolved && !pair.baseline.resolved).length;
  const clusters = pairs.map((pair) => clusterOfInstanceId(pair.instanceId));
  const clustered = new Set(clusters).size >= 2;
  const bootstrap = pairedBootstrap({
    a,
    b,
    resamples: options.resamples ?? 10_000,
    seed: options.seed ?? 1,
    ...(options.confidence !== undefined ? { confidence: options.confidence } : {}),
    ...(clustered ? { clusters } : {}),
  });
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const armRate = sum(a) / pairs.length;
  const baselineRate = sum(b) / pairs.length;
  const injected = pairs.some((pair) => pair.arm.injected !== undefined)
    ? pairs.filter((pair) => pair.arm.injected).length
    : null;
  return {
    arm: options.arm,
    baseline: options.baseline,
    framework: options.framework ?? "pooled",
    n: pairs.length,
    armRate,
    baselineRate,
    differencePoints: (armRate - baselineRate) * 100,
    baselineOnly,
    armOnly,
    p: exactMcNemar({ b: baselineOnly, c: armOnly }).p,
    interval: {
      lower: bootstrap.lower * 100,
      upper: bootstrap.upper * 100,
      confidence: bootstrap.confidence,
      unit: bootstrap.unit,
    },
    tokens: {
      localization: change(
        sum(pairs.map((pair) => pair.baseline.tokens.localization)),
        sum(pairs.map((pair) => pair.arm.tokens.localization)),
      ),
      total: change(
        sum(pairs.map((pair) => pair.baseline.tokens.total)),
        sum(pairs.map((pair) => pair.arm.tokens.total)),
      ),
    },
    injected,
  };
}
