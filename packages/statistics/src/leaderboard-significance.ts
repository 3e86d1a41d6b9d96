import { median } from "simple-statistics";
import { type NeighbourPair, type SystemComparison, compareSystems, neighbourSignificance } from "./compare-systems.js";
import { pairedMinimumDetectableEffect } from "./paired-minimum-detectable-effect.js";
import type { ResolvedMatrix } from "./parse-resolved-matrix.js";
import { pairedSampleSize } from "./paired-sample-size.js";

export interface LeaderboardSignificance {
  comparison: SystemComparison;
  /** Adjacent entries by resolve rate, with their Holm-adjusted p and whether they differ at alpha. */
  neighbours: NeighbourPair[];
  significantNeighbours: number;
  /** Median discordant rate ψ = (A only + B only) / n over neighbouring pairs: how often close systems disagree. */
  medianNeighbourPsi: number;
  /** The gain the power analysis is for (default +5.95 pp, SHERLOC's transfer gain, docs/definitions.md §1). */
  delta: number;
  power: number;
  alpha: number;
  /** Connor's n for `delta` at `power` with ψ = medianNeighbourPsi (null when δ > ψ: not detectable). */
  tasksNeeded: number | null;
  /** The smallest difference this benchmark's n can detect at `power` with that ψ. */
  minimumDetectableEffect: number | null;
}

/**
 * How far apart a leaderboard's entries really are (docs/definitions.md §7): every pair compared with
 * exact McNemar and Holm-adjusted, how many neighbouring entries are significantly apart, and
 * how many tasks a paired comparison needs to detect `delta` (default +5.95 pp) at `power`
 * (default 0.8), taking ψ as the median discordant rate of neighbouring entries.
 */
export function leaderboardSignificance(
  matrix: ResolvedMatrix,
  options: { alpha?: number; delta?: number; power?: number } = {},
): LeaderboardSignificance {
  const alpha = options.alpha ?? 0.05;
  const delta = options.delta ?? 0.0595;
  const power = options.power ?? 0.8;
  const comparison = compareSystems(matrix, { holm: true });
  const neighbours = neighbourSignificance(comparison, { alpha });
  const n = matrix.instanceIds.length;
  const pairOf = new Map(comparison.pairs.map((pair) => [`${pair.a}\u0000${pair.b}`, pair]));
  const psis = neighbours.map(({ upper, lower }) => {
    const pair = pairOf.get(`${upper}\u0000${lower}`) ?? pairOf.get(`${lower}\u0000${upper}`);
    return pair ? (pair.aOnly + pair.bOnly) / n : 0;
  });
  const psi = psis.length > 0 ? median(psis) : 0;
  const detectable = psi > 0 && delta <= psi;
  const tasksNeeded = detectable ? pairedSampleSize({ psi, delta, alpha, power }).n : null;
  let minimumDetectableEffect: number | null = null;
  if (psi > 0) {
    try {
      minimumDetectableEffect = pairedMinimumDetectableEffect({ psi, n, alpha, power }).delta;
    } catch {
      minimumDetectableEffect = null; // no δ ≤ ψ is detectable with this n
    }
  }
  return {
    comparison,
    neighbours,
    significantNeighbours: neighbours.filter((pair) => pair.significant).length,
    medianNeighbourPsi: psi,
    delta,
    power,
    alpha,
    tasksNeeded,
    minimumDetectableEffect,
  };
}
