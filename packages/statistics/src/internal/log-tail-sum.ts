import { logPmf } from "./log-pmf.js";

/** A sum of binomial probabilities written as pivot · relativeSum, the pivot its largest term. */
export interface LogTailSum {
  /** ln of the largest term P(X = pivot) in the range. */
  logPivot: number;
  /** The index of that term. */
  pivot: number;
  /** Σ over the range of P(X = j) / P(X = pivot): ≥ 1. */
  relativeSum: number;
  /** ln of the sum: logPivot + ln(relativeSum). */
  logSum: number;
}

// Stop when the geometric bound on everything not yet added is below this fraction of the sum.
const STOP = 2 ** -60;
// Recompute the running ratio exactly (saddle point) every so many steps, so that the
// rounding of the recurrence cannot build up over long walks: ≤ 256 multiplications ≈ 3e-14.
const REANCHOR = 256;

/**
 * ln Σ_{j=lo}^{hi} P(X = j), X ~ Bin(n, p), summed in log space: a log-sum-exp pivoted at the
 * largest term. The pivot is the mode ⌊(n+1)p⌋ clamped into [lo, hi]; its log probability
 * comes from the saddle-point formula (log-pmf.ts); the other terms are ratios to it, walked
 * outward from the pivot in both directions with the exact recurrences
 *   P(j−1)/P(j) = j·q / ((n−j+1)·p),   P(j+1)/P(j) = (n−j)·p / ((j+1)·q),
 * re-anchored to the saddle-point value every 256 steps. Away from the mode those ratios only
 * shrink, so the rest of a walk is bounded by a geometric series, and the walk stops when that
 * bound falls below 2^-60 of the sum: about 9 standard deviations, ≈ 30,000 terms at n = 10^7,
 * p = ½, however far the range reaches. Nothing underflows: the sum is returned as a log.
 *
 * The ratios are added with compensated (Fast2Sum / Kahan–Babuška) summation.
 *
 * Arguments are trusted: integers 0 ≤ lo ≤ hi ≤ n, 0 < p < 1, q + qLow = 1 − p (qLow the
 * rounding error of q when known, else 0).
 * Cost: O(min(hi − lo, σ·√ln(2^60))) with σ = √(npq).
 */
export function logTailSum(lo: number, hi: number, n: number, p: number, q: number, qLow: number): LogTailSum {
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const pivot = Math.min(hi, Math.max(lo, mode));
  const logPivot = logPmf(pivot, n, p, q, qLow);
  // A compensated sum of the ratios (~30,000 plain additions would cost ~1e-14): every ratio
  // is ≤ 1 ≤ sum, so Fast2Sum's error term (sum − t) + r is exact.
  let sum = 1;
  let compensation = 0;
  // Walk down: j = pivot−1, …, lo. Ratio to the previous term: (j+1)·q / ((n−j)·p).
  let r = 1;
  for (let j = pivot - 1, steps = 1; j >= lo; j -= 1, steps += 1) {
    const ratio = ((j + 1) * q) / ((n - j) * p);
    r = steps % REANCHOR === 0 ? Math.exp(logPmf(j, n, p, q, qLow) - logPivot) : r * ratio;
    const t = sum + r;
    compensation += sum - t + r;
    sum = t;
    // The ratios keep falling as j falls, so the rest is at most r·ρ/(1−ρ) with ρ the next ratio.
    const next = (j * q) / ((n - j + 1) * p);
    if (r === 0 || (next < 1 && (r * next) / (1 - next) < STOP * sum)) break;
  }
  // Walk up: j = pivot+1, …, hi. Ratio to the previous term: (n−j+1)·p / (j·q).
  r = 1;
  for (let j = pivot + 1, steps = 1; j <= hi; j += 1, steps += 1) {
    const ratio = ((n - j + 1) * p) / (j * q);
    r = steps % REANCHOR === 0 ? Math.exp(logPmf(j, n, p, q, qLow) - logPivot) : r * ratio;
    const t = sum + r;
    compensation += sum - t + r;
    sum = t;
    const next = ((n - j) * p) / ((j + 1) * q);
    if (r === 0 || (next < 1 && (r * next) / (1 - next) < STOP * sum)) break;
  }
  const relativeSum = sum + compensation;
  return { logPivot, pivot, relativeSum, logSum: logPivot + Math.log(relativeSum) };
}
