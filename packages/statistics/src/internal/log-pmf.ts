import { devianceTerm } from "./deviance-term.js";
import { stirlingError } from "./stirling-error.js";
import { twoProduct } from "./two-product.js";

const LN_2PI = Math.log(2 * Math.PI);

/**
 * ln P(X = k) for X ~ Bin(n, p), with q = 1 − p passed separately as q + qLow (qLow the
 * rounding error of q, 0 when unknown), so that a p near 1 keeps its precision (callers that
 * hold ln p pass q = −expm1(ln p)). Loader's saddle-point form:
 *
 *   ln P(X = k) = δ(n) − δ(k) − δ(n−k) − D(k, np) − D(n−k, nq) − ½·ln(2π·k·(n−k)/n)
 *
 * with δ Stirling's error (stirling-error.ts) and D the deviance term (deviance-term.ts).
 * Every term is small or computed without cancellation: np and nq are exact double-doubles
 * (twoProduct), and the last term comes from the integers k and n − k rather than R's
 * log1p(−k/n) (which loses ~1e-9 when k/n rounds near 1). The result is good to a few ulps
 * times max(1, |ln P|). k = 0 and k = n use n·ln q and n·ln p (or the deviance form when p or
 * q is below 0.1, where ln q = log1p(−p) would otherwise be needed).
 *
 * Arguments are trusted: integers 0 ≤ k ≤ n, 0 ≤ p ≤ 1, q + qLow = 1 − p. Cost: O(1).
 */
export function logPmf(k: number, n: number, p: number, q: number, qLow: number): number {
  if (p === 0) return k === 0 ? 0 : -Infinity;
  if (q === 0) return k === n ? 0 : -Infinity;
  if (k < 0 || k > n) return -Infinity;
  const np = twoProduct(n, p);
  const nq = twoProduct(n, q);
  const nqLow = nq.lo + n * qLow;
  if (k === 0) {
    if (n === 0) return 0;
    return p < 0.1 ? -devianceTerm(n, nq.hi, nqLow) - np.hi - np.lo : n * (Math.log(q) + qLow / q);
  }
  if (k === n) return q < 0.1 ? -devianceTerm(n, np.hi, np.lo) - nq.hi - nqLow : n * Math.log(p);
  const lc =
    stirlingError(n) -
    stirlingError(k) -
    stirlingError(n - k) -
    devianceTerm(k, np.hi, np.lo) -
    devianceTerm(n - k, nq.hi, nqLow);
  const lf = LN_2PI + Math.log(k) + Math.log(n - k) - Math.log(n);
  return lc - 0.5 * lf;
}
