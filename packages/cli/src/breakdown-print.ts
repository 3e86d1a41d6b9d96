import { type Breakdown, breakdownTable } from "@loclab/analysis";
import { printTable } from "./table.js";

function formatP(p: number): string {
  return p >= 0.001 ? p.toFixed(3) : p.toExponential(2);
}

/** The failure breakdown as text: one row per run, the tasks without a trajectory, the union of solved tasks, the pairwise tests. */
export function printBreakdown(breakdown: Breakdown): void {
  printTable(
    (breakdownTable(breakdown).objects() as Record<string, unknown>[]).map((row) => ({
      ...row,
      baseOnly: row.baseOnly ?? "",
      runOnly: row.runOnly ?? "",
      pVsBase: typeof row.pVsBase === "number" ? formatP(row.pVsBase) : "",
    })),
  );
  const missing = breakdown.rows.filter((row) => row.missing > 0).map((row) => `${row.run} ${row.missing}`);
  if (missing.length > 0)
    process.stdout.write(
      `tasks without a trajectory (counted as no patch unless labelled solved): ${missing.join(", ")}\n`,
    );
  process.stdout.write(`${breakdown.everSolved} tasks solved by at least one run\n`);
  if (breakdown.overlap.pairs.length === 0) return;
  process.stdout.write("pairwise (exact McNemar on the shared tasks, Holm-adjusted over the pairs):\n");
  printTable(
    breakdown.overlap.pairs.map((pair) => ({
      a: pair.a,
      b: pair.b,
      n: pair.n,
      both: pair.both,
      aOnly: pair.aOnly,
      bOnly: pair.bOnly,
      p: formatP(pair.p),
      pHolm: formatP(pair.pHolm),
    })),
  );
}
