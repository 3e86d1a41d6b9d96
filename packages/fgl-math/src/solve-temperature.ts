import { effectiveSampleSize } from "./effective-sample-size.js";
import { temperedSoftmax } from "./tempered-softmax.js";

/** How `solveTemperature` reached its weights. */
export type TemperatureMethod = "uniform" | "argmax" | "bisection";

export interface TemperatureSolution {
  /** softmax(s / τ), in the order of the scores; they sum to 1. */
  weights: number[];
  /** The temperature: Infinity for `uniform`, 0 for `argmax`. */
  tau: number;
  /** The effective sample size of `weights`. */
  ess: number;
  method: TemperatureMethod;
  /** |ess − target| ≤ tolerance. False when the target cannot be reached (see `solveTemperature`). */
  reached: boolean;
}

export interface SolveTemperatureOptions {
  /** n*, the effective sample size wanted: 2 for FGL's soft EM, 1 for hard EM. */
  targetEss: number;
  /** Accepted |ESS − n*|; default 1e-12. */
  tolerance?: number;
  /** Bisection steps at most; default 500 (each halves the interval of log τ). */
  maxIterations?: number;
}

/**
 * The temperature τ at which softmax(s / τ) has an effective sample size of n* (docs/definitions.md
 * §6), and those weights. As τ grows the weights even out and the ESS rises towards K, the
 * number of scores; as τ shrinks the weight gathers on the best scores and the ESS falls
 * towards m, how many scores tie for the maximum. So:
 *
 * - K ≤ n*: there is nothing to choose; every candidate gets 1/K (`uniform`, τ = ∞);
 * - m ≥ n*: even τ → 0 keeps the ESS at m or above; the m tied best share the weight
 *   (`argmax`, τ = 0), which reaches n* exactly when m = n* (hard EM, n* = 1, with a unique best;
 *   or two best tied for n* = 2) and is the closest one can get otherwise;
 * - m < n* < K: the ESS is continuous and increasing in τ, so n* is reached at exactly one τ,
 *   found by bisection on log τ (the scale of τ is the spread of the scores, which may be 1e-6 or
 *   1e6): first an interval is grown by doubling its width in log τ until it brackets n*, then
 *   halved until the ESS is within `tolerance` of n*.
 *
 * Equal scores are ties, however many; the result does not depend on the order of the scores
 * (but for the order of the weights, which follows theirs).
 *
 * @param scores finite numbers, at least one
 * @returns the weights, τ, their ESS, the method and whether n* was reached
 * @throws {RangeError} on no scores, a non-finite score, or n* < 1
 * @example solveTemperature([0, 0, 0], { targetEss: 2 }).method // "argmax": three tied, ESS 3 at any τ
 * @example solveTemperature([1, 0, -1], { targetEss: 2 }).ess // 2 (to 1e-12)
 */
export function solveTemperature(scores: readonly number[], options: SolveTemperatureOptions): TemperatureSolution {
  const target = options.targetEss;
  const tolerance = options.tolerance ?? 1e-12;
  const maxIterations = options.maxIterations ?? 500;
  if (!(Number.isFinite(target) && target >= 1))
    throw new RangeError(`solveTemperature: the target ESS must be a number ≥ 1, got ${target}`);
  if (scores.length === 0) throw new RangeError("solveTemperature: no scores");
  for (const score of scores)
    if (!Number.isFinite(score)) throw new RangeError(`solveTemperature: scores must be finite, got ${score}`);
  const count = scores.length;
  // Uniform and argmax weights have an ESS of exactly K or m (the float sum could say 4.999…).
  const solution = (weights: number[], tau: number, method: TemperatureMethod, exact?: number): TemperatureSolution => {
    const ess = exact ?? effectiveSampleSize(weights);
    return { weights, tau, ess, method, reached: Math.abs(ess - target) <= tolerance };
  };
  if (count <= target)
    return solution(
      scores.map(() => 1 / count),
      Infinity,
      "uniform",
      count,
    );
  const max = Math.max(...scores);
  const min = Math.min(...scores);
  const tied = scores.filter((score) => score === max).length;
  if (tied >= target) return solution(temperedSoftmax(scores, 0), 0, "argmax", tied);

  const essAt = (logTau: number) => effectiveSampleSize(temperedSoftmax(scores, Math.exp(logTau)));
  // Bracket n* in log τ, starting at the scores' own scale.
  const centre = Math.log(max - min);
  let width = 1;
  let low = centre - width;
  let high = centre + width;
  for (let i = 0; i < 2_000 && essAt(high) < target; i += 1) {
    width *= 2;
    high = centre + width;
  }
  width = 1;
  for (let i = 0; i < 2_000 && essAt(low) > target; i += 1) {
    width *= 2;
    low = centre - width;
  }
  let best = { logTau: high, error: Math.abs(essAt(high) - target) };
  const consider = (logTau: number, ess: number) => {
    const error = Math.abs(ess - target);
    if (error < best.error) best = { logTau, error };
  };
  consider(low, essAt(low));
  for (let i = 0; i < maxIterations && best.error > tolerance && high - low > 0; i += 1) {
    const middle = (low + high) / 2;
    if (middle === low || middle === high) break; // the interval is as small as doubles allow
    const ess = essAt(middle);
    consider(middle, ess);
    if (ess < target) low = middle;
    else high = middle;
  }
  const tau = Math.exp(best.logTau);
  return solution(temperedSoftmax(scores, tau), tau, "bisection");
}
