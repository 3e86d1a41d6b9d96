import { checkAlpha, checkDelta, checkPower, checkPsi } from "./internal/paired-design-checks.js";
import { normalQuantile } from "./normal-quantile.js";

/** A design for comparing two systems on paired binary outcomes (Connor 1987). */
export interface PairedDesign {
  /** ψ = p10 + p01, the expected rate of discordant pairs (tasks solved by exactly one system). */
  psi: number;
  /** δ = p10 − p01, the difference in success rates to detect. */
  delta: number;
  /** Two-sided significance level. */
  alpha: number;
  /** 1 − β, the probability of rejecting H0 when the difference is δ. */
  power: number;
  /** Number of paired tasks: the ceiling of nExact from pairedSampleSize, else as given. */
  n: number;
  /** The real-valued n of the formula (equals n for pairedPower and pairedMinimumDetectableEffect). */
  nExact: number;
}

/**
 * Sample size for comparing two systems on paired binary outcomes (McNemar design),
 * Connor (1987), docs/definitions.md §7:
 *
 *   n = [ z_{1−α/2}·√ψ + z_{1−β}·√(ψ − δ²) ]² / δ²,
 *
 * with ψ the discordant rate, δ the difference in success rates, z normal quantiles
 * (normalQuantile, full precision). Returns the real value (nExact) and the tasks needed,
 * n = ⌈nExact⌉ (a value within 1e-12 relative of an integer is taken as that integer, so that
 * rounding noise does not add a task).
 *
 * Reference: R. J. Connor (1987), "Sample size for testing differences in proportions for the
 * paired-sample design", Biometrics 43:207–211, eq. (3).
 * Errors: 0 < δ ≤ ψ ≤ 1; alpha and power in (0, 1).
 * Cost: O(1).
 *
 * @example pairedSampleSize({ psi: 0.2, delta: 0.05 }) // { n: 626, nExact: 625.547…, … }
 */
export function pairedSampleSize(options: {
  psi: number;
  delta: number;
  alpha?: number;
  power?: number;
}): PairedDesign {
  const fn = "pairedSampleSize";
  const psi = checkPsi(fn, options.psi);
  const delta = checkDelta(fn, options.delta, psi);
  const alpha = checkAlpha(fn, options.alpha ?? 0.05);
  const power = checkPower(fn, options.power ?? 0.8);
  const zAlpha = -normalQuantile(alpha / 2);
  const zBeta = normalQuantile(power);
  const root = zAlpha * Math.sqrt(psi) + zBeta * Math.sqrt(psi - delta * delta);
  const nExact = (root * root) / (delta * delta);
  const nearest = Math.round(nExact);
  // 1e-12: far above the ~1e-15 rounding noise of nExact, far below a real fraction of a task
  // even at n = 10^6 (1e-9 would swallow 0.00076 of a task at n = 760,253 and under-size it).
  const n = Math.abs(nExact - nearest) <= 1e-12 * nExact ? nearest : Math.ceil(nExact);
  return { psi, delta, alpha, power, n: Math.max(1, n), nExact };
}
