import type { ProportionInterval } from "./clopper-pearson-interval.js";
import { alphaOf } from "./internal/confidence.js";
import { requireNonNegativeInteger, requirePositiveInteger } from "./internal/validate.js";
import { normalQuantile } from "./normal-quantile.js";

/**
 * Wilson score interval for a binomial proportion from x successes in n trials: the p whose
 * score test is not rejected, (x/n − p)² ≤ z²·p(1 − p)/n with z = Φ⁻¹(1 − α/2), i.e. the roots
 * of (n + z²)·p² − (2x + z²)·p + x²/n = 0:
 *
 *   upper = (x + z²/2)/(n + z²) + z/(n + z²)·√(x(n − x)/n + z²/4),
 *   lower = x² / (n·(n + z²)·upper)   (the product of the roots is x²/(n(n + z²))).
 *
 * The lower bound is written through the product of the roots instead of center − half-width,
 * which cancels badly for small x and large n; both bounds are then free of cancellation.
 * Same values as statsmodels' proportion_confint(method="wilson"). z comes from
 * normalQuantile (full precision; simple-statistics' probit is only good to ~1e-3).
 *
 * Reference: E. B. Wilson (1927), JASA 22:209–212.
 * Edge cases: x = 0 gives lower = 0; x = n gives upper = 1. The interval always holds x/n.
 * Errors: n a positive integer, successes an integer in [0, n], confidence in (0, 1).
 * Cost: O(1).
 *
 * @example wilsonInterval({ successes: 8, n: 300 }) // { lower: 0.013573…, upper: 0.051729… }
 */
export function wilsonInterval(options: { successes: number; n: number; confidence?: number }): ProportionInterval {
  const n = requirePositiveInteger("wilsonInterval", "n", options.n);
  const x = requireNonNegativeInteger("wilsonInterval", "successes", options.successes);
  if (x > n) throw new RangeError(`wilsonInterval requires successes ≤ n, got successes = ${x}, n = ${n}`);
  const alpha = alphaOf("wilsonInterval", options.confidence ?? 0.95);
  const z = -normalQuantile(alpha / 2);
  const z2 = z * z;
  const denominator = n + z2;
  const upper =
    x === n ? 1 : Math.min(1, (x + z2 / 2) / denominator + (z / denominator) * Math.sqrt((x * (n - x)) / n + z2 / 4));
  const lower = x === 0 ? 0 : (x * x) / (n * denominator * upper);
  return { lower, upper };
}
