/**
 * The [softmax](https://en.wikipedia.org/wiki/Softmax_function) of scores at temperature τ:
 * w_k = exp(s_k / τ) / Σ_j exp(s_j / τ). A high temperature spreads the weight evenly; a low one
 * gives it to the best scores.
 *
 * Computed as exp((s_k − max s) / τ) divided by the sum, so that no exponential overflows
 * whatever the scale of the scores (±1e6 is fine): the largest term is exactly 1.
 *
 * Limits, returned exactly: τ = Infinity gives equal weights; τ = 0 gives equal weights to the
 * scores equal to the maximum (ties share) and 0 to the others.
 *
 * @param scores finite numbers (at least one)
 * @param temperature τ > 0, or 0, or Infinity
 * @returns weights summing to 1, in the order of `scores`
 * @throws {RangeError} on an empty list, a non-finite score, or a negative or NaN temperature
 * @example temperedSoftmax([0, Math.log(3)], 1) // [0.25, 0.75] (to rounding)
 * @example temperedSoftmax([1, 2, 2], 0) // [0, 0.5, 0.5]
 */
export function temperedSoftmax(scores: readonly number[], temperature: number): number[] {
  if (scores.length === 0) throw new RangeError("temperedSoftmax: no scores");
  if (!(temperature >= 0)) throw new RangeError(`temperedSoftmax: the temperature must be ≥ 0, got ${temperature}`);
  let max = -Infinity;
  for (const score of scores) {
    if (!Number.isFinite(score)) throw new RangeError(`temperedSoftmax: scores must be finite, got ${score}`);
    if (score > max) max = score;
  }
  if (temperature === Infinity) return scores.map(() => 1 / scores.length);
  const terms =
    temperature === 0
      ? scores.map((score) => (score === max ? 1 : 0))
      : scores.map((score) => Math.exp((score - max) / temperature));
  const sum = terms.reduce((total, term) => total + term, 0);
  return terms.map((term) => term / sum);
}
