import { pairWithBaseline, type TransferObservation } from "./transfer-observation.js";

/** One bin of the judge's composite: the arm's injected tasks in it and the baseline on the same tasks. */
export interface QualityBin {
  /** `≤ 2`, `2–3`, `3–4`, `> 4`. */
  bin: string;
  /** Paired observations whose finding fell in the bin and was injected. */
  n: number;
  armRate: number | null;
  baselineRate: number | null;
}

const BINS: { bin: string; holds: (composite: number) => boolean }[] = [
  { bin: "≤ 2", holds: (c) => c <= 2 },
  { bin: "2–3", holds: (c) => c > 2 && c <= 3 },
  { bin: "3–4", holds: (c) => c > 3 && c <= 4 },
  { bin: "> 4", holds: (c) => c > 4 },
];

/**
 * SHERLOC's quality analysis, pure: the injected observations of an arm handed findings, by the
 * judge's composite (≤ 2, (2, 3], (3, 4], > 4: a composite of exactly 4.0 passes SHERLOC's
 * filter and falls in 3–4), each bin's resolve rate against the baseline's on the same task ×
 * seed × framework. An observation the arm did not inject (`injected: false`) or without a
 * composite is left out; an arm that does not record injection counts every observation.
 */
export function qualityBins(
  observations: readonly TransferObservation[],
  options: { arm: string; baseline: string; framework?: string },
): QualityBin[] {
  const pairs = pairWithBaseline(observations, options).filter(
    (pair) => pair.arm.composite !== undefined && pair.arm.injected !== false,
  );
  return BINS.map(({ bin, holds }) => {
    const inBin = pairs.filter((pair) => holds(pair.arm.composite as number));
    const rate = (resolved: number) => (inBin.length === 0 ? null : resolved / inBin.length);
    return {
      bin,
      n: inBin.length,
      armRate: rate(inBin.filter((pair) => pair.arm.resolved).length),
      baselineRate: rate(inBin.filter((pair) => pair.baseline.resolved).length),
    };
  });
}
