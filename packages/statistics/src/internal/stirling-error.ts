/**
 * Stirling's error term, δ(n) = ln n! − [½·ln(2πn) + n·ln n − n], for integers n ≥ 0.
 *
 * The saddle-point binomial (Loader 2000, see binomial-log-pmf.ts) needs ln n! − ln k! −
 * ln (n−k)! to full relative precision even when n is 10^7 and the three log-factorials are
 * each ~1.5·10^8: it takes the Stirling part in closed form (where the large terms cancel
 * analytically) and only adds the small corrections δ(n) − δ(k) − δ(n−k).
 *
 * n ≤ 15: a table, computed to 40 digits with mpmath (loggamma(n+1) − (n+½)·log n + n −
 * ½·log 2π) and rounded to double. δ(0) is never used by the callers and is set to 0.
 * n > 15: the asymptotic series 1/(12n) − 1/(360n³) + 1/(1260n⁵) − 1/(1680n⁷) + 1/(1188n⁹),
 * truncated by size as in Loader's code; the first omitted term is below 1.1·10⁻¹⁶ absolute.
 *
 * Reference: C. Loader, "Fast and accurate computation of binomial probabilities" (2000).
 * Cost: O(1).
 */
const TABLE = [
  0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834, 0.020790672103765093, 0.016644691189821193,
  0.013876128823070748, 0.01189670994589177, 0.010411265261972096, 0.009255462182712733, 0.00833056343336287,
  0.007573675487951841, 0.00694284010720953, 0.006408994188004207, 0.0059513701127588475, 0.005554733551962801,
] as const;

const S0 = 1 / 12;
const S1 = 1 / 360;
const S2 = 1 / 1260;
const S3 = 1 / 1680;
const S4 = 1 / 1188;

export function stirlingError(n: number): number {
  if (n <= 15) return TABLE[n] as number;
  const nn = n * n;
  if (n > 500) return (S0 - S1 / nn) / n;
  if (n > 80) return (S0 - (S1 - S2 / nn) / nn) / n;
  if (n > 35) return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
  return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}
