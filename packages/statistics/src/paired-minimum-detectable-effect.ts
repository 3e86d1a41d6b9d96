import { checkAlpha, checkN, checkPower, checkPsi } from "./internal/paired-design-checks.js";
import { normalQuantile } from "./normal-quantile.js";
import type { PairedDesign } from "./paired-sample-size.js";

/**
 * Minimum detectable effect for comparing two systems on n paired tasks (Connor 1987): the δ
 * at which the McNemar comparison has the requested power, i.e. the root of
 *
 *   √n·δ − z_{1−β}·√(ψ − δ²) = z_{1−α/2}·√ψ.
 *
 * Closed form: with s = √n, A = z_{1−α/2}·√ψ, B = z_{1−β}, squaring gives the quadratic
 * (s² + B²)·δ² − 2sA·δ + (A² − B²ψ) = 0, whose root on the branch where s·δ − A has the sign
 * of B is
 *
 *   δ = [ sA + B·√((s² + B²)·ψ − A²) ] / (s² + B²).
 *
 * Round trip: pairedSampleSize({ psi, delta: δ, alpha, power }).nExact = n.
 * Reference: R. J. Connor (1987), Biometrics 43:207–211.
 * Errors: ψ in (0, 1]; n > 0; alpha and power in (0, 1); an n so small that δ would exceed ψ
 * (no attainable difference has that power) throws, naming the smallest n that works.
 * Cost: O(1).
 *
 * @example pairedMinimumDetectableEffect({ psi: 0.2, n: 300 }).delta // 0.072053…
 */
export function pairedMinimumDetectableEffect(options: {
  psi: number;
  n: number;
  alpha?: number;
  power?: number;
}): PairedDesign {
  const fn = "pairedMinimumDetectableEffect";
  const psi = checkPsi(fn, options.psi);
  const n = checkN(fn, options.n);
  const alpha = checkAlpha(fn, options.alpha ?? 0.05);
  const power = checkPower(fn, options.power ?? 0.8);
  const A = -normalQuantile(alpha / 2) * Math.sqrt(psi);
  const B = normalQuantile(power);
  const s2 = n;
  const s = Math.sqrt(n);
  const discriminant = (s2 + B * B) * psi - A * A;
  const delta = discriminant >= 0 ? (s * A + B * Math.sqrt(discriminant)) / (s2 + B * B) : Number.NaN;
  // The squared equation also has a root on the other branch: keep δ only if s·δ − A has the
  // sign of B (it fails when n ≤ z²_{1−α/2} and power > ½: then no δ ≤ ψ is enough).
  const onBranch = (s * delta - A) * B >= -1e-12 * A * Math.abs(B);
  if (!(delta > 0 && delta <= psi && onBranch)) {
    // At δ = ψ the formula needs n = [A + B·√(ψ − ψ²)]² / ψ².
    const root = A + B * Math.sqrt(psi - psi * psi);
    const smallest = Math.ceil((root * root) / (psi * psi));
    throw new RangeError(
      `${fn}: no difference δ ≤ psi = ${psi} reaches power ${power} at alpha ${alpha} with n = ${n}; n must be at least ${smallest}`,
    );
  }
  return { psi, delta, alpha, power, n, nExact: n };
}
