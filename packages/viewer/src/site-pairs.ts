import { type BinaryOutcome, clopperPearsonInterval, pairedTable, pairwiseMcNemar } from "@loclab/statistics";
import type { SitePair, SiteValue } from "./site-types.js";

/**
 * Every pair of cells on the binary column (docs/definitions.md §12) over the instances both
 * have a value for: the statistics package's paired table and exact McNemar (`pairedTable`,
 * `pairwiseMcNemar`, as leaderboards and runs compare), and θ = aOnly / (aOnly + bOnly) with
 * its exact interval. Without a discordant task there is no p-value and no interval. Pure.
 * Cost: O(cells² · instances) — a run of 40 cells over 500 instances is 0.4 M lookups.
 */
export function cellPairs(options: {
  instance: readonly SiteValue[];
  cell: readonly SiteValue[];
  binary: readonly SiteValue[];
  confidence?: number;
}): SitePair[] {
  const byCell = new Map<string, Map<string, BinaryOutcome>>();
  options.cell.forEach((cell, row) => {
    const value = options.binary[row];
    if (typeof cell !== "string" || (value !== 0 && value !== 1 && typeof value !== "boolean")) return;
    let outcomes = byCell.get(cell);
    if (!outcomes) byCell.set(cell, (outcomes = new Map()));
    outcomes.set(String(options.instance[row]), value);
  });
  const cells = [...byCell.keys()].sort();
  const outcomesOf = (index: number) => byCell.get(cells[index]!)!;
  const rate = (solved: number, n: number) => (n > 0 ? solved / n : null);
  return pairwiseMcNemar(cells.length, (a, b) => pairedTable({ a: outcomesOf(a), b: outcomesOf(b), intersect: true }), {
    holm: false,
  }).map((pair) => {
    const discordant = pair.aOnly + pair.bOnly;
    const interval =
      discordant > 0
        ? clopperPearsonInterval({ successes: pair.aOnly, n: discordant, confidence: options.confidence ?? 0.95 })
        : undefined;
    return {
      a: cells[pair.a]!,
      b: cells[pair.b]!,
      n: pair.n,
      aRate: rate(pair.bothSolved + pair.aOnly, pair.n),
      bRate: rate(pair.bothSolved + pair.bOnly, pair.n),
      aOnly: pair.aOnly,
      bOnly: pair.bOnly,
      p: discordant > 0 ? pair.p : null,
      thetaLower: interval ? interval.lower : null,
      thetaUpper: interval ? interval.upper : null,
    };
  });
}
