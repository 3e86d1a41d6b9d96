import * as aq from "arquero";
import type { ColumnTable } from "arquero";
import type { Breakdown } from "../breakdown/breakdown-runs.js";

/**
 * The overlap of solved sets in long form, one row per ordered pair of runs (a, b), diagonal
 * included: tasks both solved, solved by a only and by b only, the Jaccard index, and the exact
 * McNemar p with its Holm adjustment over all pairs (null on the diagonal). The data of
 * overlapHeatmap.
 */
export function overlapTable(breakdown: Breakdown): ColumnTable {
  const { runs, both, pairs } = breakdown.overlap;
  const pairOf = new Map(pairs.map((pair) => [`${pair.a}\u0000${pair.b}`, pair]));
  const rows = runs.flatMap((a, i) =>
    runs.map((b, j) => {
      const pair = pairOf.get(`${a}\u0000${b}`);
      const mirrored = pairOf.get(`${b}\u0000${a}`);
      const aOnly = pair ? pair.aOnly : mirrored ? mirrored.bOnly : 0;
      const bOnly = pair ? pair.bOnly : mirrored ? mirrored.aOnly : 0;
      const shared = (both[i] as number[])[j] as number;
      const p = pair?.p ?? mirrored?.p ?? null;
      return {
        a,
        b,
        both: shared,
        aOnly,
        bOnly,
        jaccard: i === j ? (shared > 0 ? 1 : null) : ((pair ?? mirrored)?.jaccard ?? null),
        p,
        pHolm: pair?.pHolm ?? mirrored?.pHolm ?? null,
      };
    }),
  );
  return aq.from(rows);
}
