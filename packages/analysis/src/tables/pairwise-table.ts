import * as aq from "arquero";
import type { ColumnTable } from "arquero";
import type { Breakdown } from "../breakdown/breakdown-runs.js";

/**
 * The paired tests between runs, one row per unordered pair: shared tasks n, both solved, a
 * only, b only, neither, exact McNemar p and Holm-adjusted p (over all pairs), sorted by p.
 */
export function pairwiseTable(breakdown: Breakdown): ColumnTable {
  return aq.from(
    [...breakdown.overlap.pairs].sort((x, y) => x.p - y.p || x.a.localeCompare(y.a) || x.b.localeCompare(y.b)),
  );
}
