import { exactMcNemar } from "./exact-mcnemar.js";
import { holmAdjust } from "./holm-adjust.js";

/** The discordant counts of a pair: tasks only the first solved (b), only the second (c). */
export interface DiscordantCounts {
  aOnly: number;
  bOnly: number;
}

/** One pair (indices a < b) with its table, the exact McNemar p and the Holm-adjusted p. */
export type McNemarPair<Table extends DiscordantCounts> = Table & { a: number; b: number; p: number; pHolm: number };

/**
 * Every pair of `count` systems (or runs) compared by the exact McNemar test on its paired
 * table (docs/definitions.md §7), with Holm's step-down adjustment over all pairs (`holm`,
 * default true; without it `pHolm` equals `p`). The caller builds each pair's table
 * (`tableOf(a, b)`, any object with `aOnly` and `bOnly`, kept in the result), so leaderboard
 * matrices and trajectory runs share one definition of the comparison.
 *
 * Pairs are in order (0,1), (0,2), …, (1,2), …. Cost: O(count²) tables plus one Holm sort.
 *
 * @example pairwiseMcNemar(3, (a, b) => ({ aOnly: a, bOnly: b + 4 }))[0] // { aOnly: 0, bOnly: 5, a: 0, b: 1, p: 0.0625, pHolm: 0.125 }
 */
export function pairwiseMcNemar<Table extends DiscordantCounts>(
  count: number,
  tableOf: (a: number, b: number) => Table,
  options: { holm?: boolean } = {},
): McNemarPair<Table>[] {
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`pairwiseMcNemar requires a non-negative integer count, got ${count}`);
  const pairs: McNemarPair<Table>[] = [];
  for (let a = 0; a < count; a += 1) {
    for (let b = a + 1; b < count; b += 1) {
      const table = tableOf(a, b);
      const { p } = exactMcNemar({ b: table.aOnly, c: table.bOnly });
      pairs.push({ ...table, a, b, p, pHolm: p });
    }
  }
  if (options.holm ?? true) {
    const adjusted = holmAdjust(pairs.map((pair) => pair.p));
    pairs.forEach((pair, i) => {
      pair.pHolm = adjusted[i] as number;
    });
  }
  return pairs;
}
