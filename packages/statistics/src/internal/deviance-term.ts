/**
 * The deviance term D(x, M) = x·ln(x/M) + M − x ≥ 0 (Loader's bd0): the saddle-point
 * exponent of a binomial or Poisson probability, computed without cancellation, with the mean
 * given in two parts M = mHigh + mLow (mLow the rounding error of n·p from twoProduct).
 *
 * When x is near M the two parts of x·ln(x/M) + M − x nearly cancel, so for |x − M| <
 * 0.1·(x + M) it uses the series in v = (x − M)/(x + M):
 *   D = (x − M)·v + 2x·Σ_{j≥1} v^(2j+1)/(2j+1),
 * whose terms are all of one sign and shrink by v² ≤ 1/121 each step; x − M is formed as
 * (x − mHigh) − mLow, exact enough that D keeps full relative precision. Elsewhere the
 * direct formula (with ln(1 + mLow/mHigh) ≈ mLow/mHigh) loses at most a few ulps.
 *
 * Reference: C. Loader, "Fast and accurate computation of binomial probabilities" (2000).
 * Cost: O(1) (≤ 15 series terms).
 */
export function devianceTerm(x: number, mHigh: number, mLow: number): number {
  const diff = x - mHigh - mLow;
  const total = x + mHigh + mLow;
  if (Math.abs(diff) < 0.1 * total) {
    let v = diff / total;
    let s = diff * v;
    if (Math.abs(s) < Number.MIN_VALUE * 4) return s;
    let ej = 2 * x * v;
    v *= v;
    for (let j = 1; j < 1000; j += 1) {
      ej *= v;
      const next = s + ej / (2 * j + 1);
      if (next === s) return next;
      s = next;
    }
    return s;
  }
  return x * (Math.log(x / mHigh) - mLow / mHigh) + (mHigh - x) + mLow;
}
