import { clusterOfInstanceId } from "./cluster-of-instance-id.js";
import { clusteredStandardError } from "./clustered-standard-error.js";
import { pairwiseMcNemar } from "./pairwise-mcnemar.js";
import type { ResolvedMatrix } from "./parse-resolved-matrix.js";
import { wilsonInterval } from "./wilson-interval.js";

/** One system of a resolved matrix: its resolve rate with a Wilson interval and a clustered SE. */
export interface SystemSummary {
  name: string;
  resolved: number;
  n: number;
  rate: number;
  wilson: [number, number];
  /**
   * Standard error of the rate with repositories as clusters (docs/definitions.md §7); null when
   * the tasks come from fewer than two repositories (the clustered SE is then undefined).
   */
  clusteredSE: number | null;
}

/** One pair of systems: tasks only A solved, only B solved, the exact McNemar p and its Holm adjustment. */
export interface SystemPair {
  a: string;
  b: string;
  aOnly: number;
  bOnly: number;
  p: number;
  /** Holm-adjusted over all pairs of the comparison; equal to `p` when not adjusted. */
  pHolm: number;
}

export interface SystemComparison {
  systems: SystemSummary[];
  pairs: SystemPair[];
}

/**
 * Every system of a resolved matrix (one 0/1 outcome per task) summarized, and every pair
 * compared with the exact McNemar test on the same tasks (docs/definitions.md §7), Holm-adjusted over
 * all pairs when `holm` is set (default true). Clusters are repositories, taken from the
 * instance ids. Pairs follow the matrix's column order (a before b).
 *
 * Cost: O(S² · n) for S systems and n tasks (861 pairs × 300 tasks on SWE-bench Lite).
 *
 * @example compareSystems(parseResolvedMatrix(text, { source: "lite.csv" })).pairs[0]
 */
export function compareSystems(
  matrix: ResolvedMatrix,
  options: { holm?: boolean; confidence?: number } = {},
): SystemComparison {
  const { instanceIds, systems: names, outcomes } = matrix;
  const n = instanceIds.length;
  // An id not shaped "owner__repo-N" is its own cluster, so a user's matrix still compares.
  const clusters = instanceIds.map((id) => (/^.+-\d+$/.test(id) ? clusterOfInstanceId(id) : id));
  const clusterCount = new Set(clusters).size;
  const systems = names.map((name, s) => {
    const outcome = outcomes[s] as Uint8Array;
    let resolved = 0;
    for (let i = 0; i < n; i += 1) resolved += outcome[i] as number;
    const wilson = wilsonInterval({
      successes: resolved,
      n,
      ...(options.confidence === undefined ? {} : { confidence: options.confidence }),
    });
    return {
      name,
      resolved,
      n,
      rate: n === 0 ? 0 : resolved / n,
      wilson: [wilson.lower, wilson.upper] as [number, number],
      clusteredSE: clusterCount < 2 ? null : clusteredStandardError({ values: outcome, clusters }).standardError,
    };
  });
  const pairs: SystemPair[] = pairwiseMcNemar(
    names.length,
    (a, b) => {
      const x = outcomes[a] as Uint8Array;
      const y = outcomes[b] as Uint8Array;
      let aOnly = 0;
      let bOnly = 0;
      for (let i = 0; i < n; i += 1) {
        if (x[i] === y[i]) continue;
        if (x[i] === 1) aOnly += 1;
        else bOnly += 1;
      }
      return { aOnly, bOnly };
    },
    { holm: options.holm ?? true },
  ).map((pair) => ({
    a: names[pair.a] as string,
    b: names[pair.b] as string,
    aOnly: pair.aOnly,
    bOnly: pair.bOnly,
    p: pair.p,
    pHolm: pair.pHolm,
  }));
  return { systems, pairs };
}

/** Two systems next to each other on the leaderboard, and whether they are significantly apart. */
export interface NeighbourPair {
  upper: string;
  lower: string;
  upperRate: number;
  lowerRate: number;
  pHolm: number;
  significant: boolean;
}

/**
 * Neighbouring leaderboard entries (systems ranked by resolve rate, ties by name) and whether
 * each adjacent pair differs significantly at `alpha` (default 0.05) on the Holm-adjusted
 * p-value of the full comparison — "is #7 really better than #8?".
 */
export function neighbourSignificance(comparison: SystemComparison, options: { alpha?: number } = {}): NeighbourPair[] {
  const alpha = options.alpha ?? 0.05;
  const ranked = [...comparison.systems].sort((x, y) => y.rate - x.rate || x.name.localeCompare(y.name));
  const pairOf = new Map(
    comparison.pairs.flatMap(
      (pair) =>
        [
          [`${pair.a}\u0000${pair.b}`, pair],
          [`${pair.b}\u0000${pair.a}`, pair],
        ] as const,
    ),
  );
  const neighbours: NeighbourPair[] = [];
  for (let i = 0; i + 1 < ranked.length; i += 1) {
    const upper = ranked[i] as SystemSummary;
    const lower = ranked[i + 1] as SystemSummary;
    const pair = pairOf.get(`${upper.name}\u0000${lower.name}`);
    if (!pair) throw new Error(`neighbourSignificance: no comparison for ${upper.name} vs ${lower.name}`);
    neighbours.push({
      upper: upper.name,
      lower: lower.name,
      upperRate: upper.rate,
      lowerRate: lower.rate,
      pHolm: pair.pHolm,
      significant: pair.pHolm < alpha,
    });
  }
  return neighbours;
}

/**
 * The pairwise comparison as a full symmetric matrix in long form (one row per ordered pair,
 * the diagonal null), with systems ordered by resolve rate, best first: ready for a heatmap.
 */
export function pairwiseMatrixRows(comparison: SystemComparison): {
  order: string[];
  rows: { a: string; b: string; pHolm: number | null; p: number | null }[];
} {
  const order = [...comparison.systems]
    .sort((x, y) => y.rate - x.rate || x.name.localeCompare(y.name))
    .map((system) => system.name);
  const byPair = new Map<string, SystemPair>();
  for (const pair of comparison.pairs) {
    byPair.set(`${pair.a}\u0000${pair.b}`, pair);
    byPair.set(`${pair.b}\u0000${pair.a}`, pair);
  }
  const rows = order.flatMap((a) =>
    order.map((b) => {
      const pair = a === b ? undefined : byPair.get(`${a}\u0000${b}`);
      return { a, b, pHolm: pair ? pair.pHolm : null, p: pair ? pair.p : null };
    }),
  );
  return { order, rows };
}
