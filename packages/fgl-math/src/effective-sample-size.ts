/**
 * The [effective sample size](https://en.wikipedia.org/wiki/Effective_sample_size#Weighted_samples)
 * of a set of non-negative weights, (Σw)² / Σw² (Kish's formula). It is K for K equal weights, 1
 * when one weight holds everything, and in between otherwise; scaling every weight by the same
 * factor leaves it unchanged, so the weights need not sum to 1.
 *
 * This is how FGL (docs/definitions.md §6) measures how many candidates a task's weights
 * effectively train on.
 *
 * @param weights non-negative finite numbers, at least one of them positive
 * @returns the effective sample size, in [1, weights.length]
 * @throws {RangeError} on a negative or non-finite weight, or when all weights are 0
 * @example effectiveSampleSize([1, 1, 1, 1]) // 4
 * @example effectiveSampleSize([0.5, 0.5, 0, 0]) // 2
 * @example effectiveSampleSize([3, 1]) // 1.6
 */
export function effectiveSampleSize(weights: readonly number[]): number {
  let sum = 0;
  let sumOfSquares = 0;
  for (const weight of weights) {
    if (!Number.isFinite(weight) || weight < 0)
      throw new RangeError(`effectiveSampleSize: weights must be finite and non-negative, got ${weight}`);
    sum += weight;
    sumOfSquares += weight * weight;
  }
  if (sum === 0) throw new RangeError("effectiveSampleSize: at least one weight must be positive");
  return (sum * sum) / sumOfSquares;
}
