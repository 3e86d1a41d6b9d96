/** Outcome of one system on one instance: solved (true / 1) or not (false / 0). */
export type BinaryOutcome = boolean | 0 | 1;

/** The 2 × 2 table of two systems' outcomes on the same instances. */
export interface PairedTable {
  /** Instances compared. */
  n: number;
  bothSolved: number;
  /** Solved by a only: McNemar's b. */
  aOnly: number;
  /** Solved by b only: McNemar's c. */
  bOnly: number;
  neither: number;
  /** The instance ids compared, in a's order. */
  ids: string[];
  /** Ids left out because only one side has them (empty unless intersect was set). */
  dropped: { onlyInA: string[]; onlyInB: string[] };
}

const EXAMPLES = 3;

function solved(value: unknown, side: string, id: string): boolean {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  throw new RangeError(
    `pairedTable requires outcomes true/false or 1/0, got ${String(value)} for ${JSON.stringify(id)} in ${side}`,
  );
}

function describe(ids: string[]): string {
  const shown = ids.slice(0, EXAMPLES).join(", ");
  return ids.length > EXAMPLES ? `${shown}, …` : shown;
}

/**
 * Paired 2 × 2 table of two systems' binary outcomes keyed by instance id: how many instances
 * both solved, only a solved (McNemar's b), only b solved (c), and neither. Feed
 * { b: aOnly, c: bOnly } to exactMcNemar.
 *
 * Both maps must cover the same instances: a comparison over different task sets is not
 * paired. When they differ it throws, saying how many ids are only in a and only in b, with up
 * to three examples of each — unless `intersect: true`, which compares the shared ids and
 * lists the dropped ones in `dropped`.
 *
 * Errors: differing id sets (without intersect); an outcome that is not true/false/1/0.
 * Cost: O(|a| + |b|).
 *
 * @example pairedTable({ a: new Map([["x-1", 1], ["x-2", 0]]), b: new Map([["x-1", 0], ["x-2", 0]]) })
 *          // { n: 2, bothSolved: 0, aOnly: 1, bOnly: 0, neither: 1, ids: ["x-1", "x-2"], dropped: … }
 */
export function pairedTable(options: {
  a: ReadonlyMap<string, BinaryOutcome>;
  b: ReadonlyMap<string, BinaryOutcome>;
  intersect?: boolean;
}): PairedTable {
  const { a, b } = options;
  const onlyInA: string[] = [];
  const onlyInB: string[] = [];
  for (const id of a.keys()) if (!b.has(id)) onlyInA.push(id);
  for (const id of b.keys()) if (!a.has(id)) onlyInB.push(id);
  if ((onlyInA.length > 0 || onlyInB.length > 0) && !options.intersect) {
    const parts: string[] = [];
    if (onlyInA.length > 0) parts.push(`${onlyInA.length} only in a (${describe(onlyInA)})`);
    if (onlyInB.length > 0) parts.push(`${onlyInB.length} only in b (${describe(onlyInB)})`);
    throw new Error(
      `pairedTable requires both sides to cover the same instances: ${parts.join(", ")}; pass intersect: true to compare the ${a.size - onlyInA.length} shared ids`,
    );
  }
  const ids: string[] = [];
  const x: number[] = [];
  const y: number[] = [];
  for (const [id, valueA] of a) {
    if (!b.has(id)) continue;
    x.push(solved(valueA, "a", id) ? 1 : 0);
    y.push(solved(b.get(id), "b", id) ? 1 : 0);
    ids.push(id);
  }
  const { bothSolved, aOnly, bOnly, neither } = pairedCounts(x, y);
  for (const id of onlyInB) solved(b.get(id), "b", id);
  for (const id of onlyInA) solved(a.get(id), "a", id);
  return { n: ids.length, bothSolved, aOnly, bOnly, neither, ids, dropped: { onlyInA, onlyInB } };
}

/** The counts of a paired 2 × 2 table, from aligned values (`pairedCounts`). */
export interface PairedCounts {
  /** Pairs counted: both values defined (not NaN). */
  n: number;
  bothSolved: number;
  /** 1 in a and 0 in b: McNemar's b. */
  aOnly: number;
  /** 0 in a and 1 in b: McNemar's c. */
  bOnly: number;
  neither: number;
  /** Every counted value is 0 or 1; pairs with another value are in `n` but in none of the four cells, and McNemar does not apply. */
  binary: boolean;
}

/**
 * The one count of a paired 2 × 2 table (`pairedTable` keyed by instance id calls it too):
 * `a[i]` and `b[i]` are one instance's values under two systems; pairs where either is NaN are
 * left out (an instance a metric excludes). Pure; O(n).
 *
 * @example pairedCounts([1, 1, 0, NaN], [1, 0, 1, 1]) // { n: 3, bothSolved: 1, aOnly: 1, bOnly: 1, neither: 0, binary: true }
 */
export function pairedCounts(a: ArrayLike<number>, b: ArrayLike<number>): PairedCounts {
  if (a.length !== b.length)
    throw new RangeError(`pairedCounts: ${a.length} values in a and ${b.length} in b; they must be aligned`);
  const counts: PairedCounts = { n: 0, bothSolved: 0, aOnly: 0, bOnly: 0, neither: 0, binary: true };
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    counts.n += 1;
    if ((x !== 0 && x !== 1) || (y !== 0 && y !== 1)) counts.binary = false;
    else if (x === 1 && y === 1) counts.bothSolved += 1;
    else if (x === 1) counts.aOnly += 1;
    else if (y === 1) counts.bOnly += 1;
    else counts.neither += 1;
  }
  return counts;
}
