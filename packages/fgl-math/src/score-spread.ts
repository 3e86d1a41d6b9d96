/**
 * The within-task spread of candidate scores (docs/definitions.md §6): the sample standard
 * deviation (n − 1 in the denominator) of a task's per-token log-likelihoods. FGL sets its
 * penalties from the median of this spread over tasks (σ = 0.068 nats per token, λ = 0.25·σ).
 * Undefined for fewer than two scores.
 *
 * @example withinTaskSpread([-0.5, -0.6, -0.7]) // 0.1
 */
export function withinTaskSpread(scores: readonly number[]): number | undefined {
  if (scores.length < 2) return undefined;
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  let sum = 0;
  for (const s of scores) sum += (s - mean) ** 2;
  return Math.sqrt(sum / (scores.length - 1));
}

/** The distribution of per-task spreads: count, min, quartiles (linear interpolation, numpy's default), max. */
export function spreadDistribution(
  spreads: readonly number[],
): { tasks: number; min: number; q1: number; median: number; q3: number; max: number } | undefined {
  if (spreads.length === 0) return undefined;
  const sorted = [...spreads].sort((a, b) => a - b);
  const at = (q: number) => {
    const position = q * (sorted.length - 1);
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
  };
  return { tasks: sorted.length, min: sorted[0]!, q1: at(0.25), median: at(0.5), q3: at(0.75), max: sorted.at(-1)! };
}
