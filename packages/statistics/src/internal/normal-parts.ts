// Building blocks of the normal CDF and quantile (normal-cdf.ts, normal-quantile.ts), each
// accurate to a few ulps relative in its range.

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

/**
 * The standard normal density φ(z) = exp(−z²/2)/√(2π), with z² split as zh² + (z−zh)(z+zh),
 * zh = z rounded to 1/16 (so zh² is exact), to avoid the rounding of z² (up to 8e-14
 * relative at |z| = 38) that exp would otherwise amplify.
 */
export function normalDensity(z: number): number {
  const zh = Math.trunc(z * 16) / 16;
  return INV_SQRT_2PI * Math.exp(-0.5 * zh * zh) * Math.exp(-0.5 * (z - zh) * (z + zh));
}

/**
 * ln φ(z) = −z²/2 − ½·ln(2π), for use where φ underflows.
 */
export function logNormalDensity(z: number): number {
  return -0.5 * z * z + Math.log(INV_SQRT_2PI);
}

/**
 * erf(x) for |x| ≲ 3 by the series with positive terms (Abramowitz & Stegun 7.1.6):
 *   erf(x) = (2/√π)·exp(−x²)·Σ_{k≥0} 2^k·x^(2k+1) / (1·3·…·(2k+1)),
 * which has no cancellation, so erf keeps full relative precision near 0 (where 1 − erfc
 * would not). ≤ ~60 terms for |x| ≤ 3.
 */
export function erfSeries(x: number): number {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let k = 1; k < 500; k += 1) {
    term *= (2 * x2) / (2 * k + 1);
    const next = sum + term;
    if (next === sum) break;
    sum = next;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

/**
 * Mills' ratio R(x) = (1 − Φ(x))/φ(x) for x ≥ 1.5, from Laplace's continued fraction
 *   R(x) = 1/(x + 1/(x + 2/(x + 3/(x + …)))),
 * evaluated by the modified Lentz method until a step changes it by less than 1 ulp.
 * All partial numerators are positive, so it is stable; ~200 steps at x = 1.5, ~20 at x = 8.
 */
export function millsRatio(x: number): number {
  const tiny = 1e-300;
  let f = tiny;
  let C = f;
  let D = 0;
  for (let i = 1; i < 5000; i += 1) {
    const a = i === 1 ? 1 : i - 1;
    D = x + a * D;
    if (D === 0) D = tiny;
    C = x + a / C;
    if (C === 0) C = tiny;
    D = 1 / D;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 2.2e-16) break;
  }
  return f;
}
