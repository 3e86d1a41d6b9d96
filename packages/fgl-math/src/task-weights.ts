import { type AnchoredCandidate, type AnchorOptions, anchorWeights } from "./anchor-weights.js";
import { solveTemperature, type TemperatureMethod } from "./solve-temperature.js";

/** One scored candidate of a task: s_k (docs/definitions.md §5) and whether it is the teacher's localization. */
export interface ScoredCandidate {
  candidate: string;
  score: number;
  teacher?: boolean;
}

export interface TaskWeightsOptions extends AnchorOptions {
  /** n*, the effective sample size of the softmax weights; default 2 (soft EM; 1 for hard EM). */
  ess?: number;
}

export interface TaskWeights {
  rows: (AnchoredCandidate & { score: number })[];
  /** The temperature chosen (Infinity: uniform; 0: the tied best share). */
  tau: number;
  /** The effective sample size of the softmax weights at τ. */
  ess: number;
  method: TemperatureMethod;
  reached: boolean;
}

/**
 * FGL's weights for one task (docs/definitions.md §6), end to end: softmax(s / τ) with τ solved
 * so that the ESS is n* (`solveTemperature`), then the top M kept and the teacher anchored
 * (`anchorWeights`). The rows follow the order of `candidates`; their `weight`s sum to 1.
 *
 * @example fglTaskWeights([{ candidate: "a", score: -0.5 }, { candidate: "b", score: -0.7 }, { candidate: "t", score: -0.6, teacher: true }]).rows.map((r) => r.weight)
 */
export function fglTaskWeights(candidates: readonly ScoredCandidate[], options: TaskWeightsOptions = {}): TaskWeights {
  const solved = solveTemperature(
    candidates.map((candidate) => candidate.score),
    { targetEss: options.ess ?? 2 },
  );
  const anchored = anchorWeights(
    candidates.map((candidate, index) => ({
      candidate: candidate.candidate,
      weight: solved.weights[index] as number,
      ...(candidate.teacher ? { teacher: true } : {}),
    })),
    options,
  );
  return {
    rows: anchored.map((row, index) => ({ ...row, score: (candidates[index] as ScoredCandidate).score })),
    tau: solved.tau,
    ess: solved.ess,
    method: solved.method,
    reached: solved.reached,
  };
}
