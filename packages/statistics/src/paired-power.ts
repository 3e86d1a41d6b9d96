import { checkAlpha, checkDelta, checkN, checkPsi } from "./internal/paired-design-checks.js";
import { normalCdf } from "./normal-cdf.js";
import { normalQuantile } from "./normal-quantile.js";
import type { PairedDesign } from "./paired-sample-size.js";

/**
 * Power of the McNemar comparison of two systems on n paired tasks (Connor 1987), the
 * sample-size formula of pairedSampleSize solved for z_{1−β}:
 *
 *   power = Φ( (δ·√n − z_{1−α/2}·√ψ) / √(ψ − δ²) ),
 *
 * Φ the standard normal CDF (normalCdf, full relative precision also for tiny powers). When
 * δ² = ψ (only possible at δ = ψ = 1: every pair discordant, all one way) the denominator is
 * 0 and the power is 1 or 0 by the sign of the numerator. n may be fractional, so that the
 * nExact of pairedSampleSize maps back to the requested power.
 *
 * Reference: R. J. Connor (1987), Biometrics 43:207–211.
 * Errors: 0 < δ ≤ ψ ≤ 1; n > 0; alpha in (0, 1).
 * Cost: O(1).
 *
 * @example pairedPower({ psi: 0.2, delta: 0.05, n: 300 }).power // 0.49058…
 */
export function pairedPower(options: { psi: number; delta: number; n: number; alpha?: number }): PairedDesign {
  const fn = "pairedPower";
  const psi = checkPsi(fn, options.psi);
  const delta = checkDelta(fn, options.delta, psi);
  const n = checkN(fn, options.n);
  const alpha = checkAlpha(fn, options.alpha ?? 0.05);
  const zAlpha = -normalQuantile(alpha / 2);
  const numerator = delta * Math.sqrt(n) - zAlpha * Math.sqrt(psi);
  const spread = psi - delta * delta;
  const power = spread > 0 ? normalCdf(numerator / Math.sqrt(spread)) : numerator > 0 ? 1 : numerator < 0 ? 0 : 0.5;
  return { psi, delta, alpha, power, n, nExact: n };
}
