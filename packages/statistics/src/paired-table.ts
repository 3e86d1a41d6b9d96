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
  let bothSolved = 0;
  let aOnly = 0;
  let bOnly = 0;
  let neither = 0;
  const ids: string[] = [];
  for (const [id, valueA] of a) {
    if (!b.has(id)) continue;
    const x = solved(valueA, "a", id);
    const y = solved(b.get(id), "b", id);
    if (x && y) bothSolved += 1;
    else if (x) aOnly += 1;
    else if (y) bOnly += 1;
    else neither += 1;
    ids.push(id);
  }
  for (const id of onlyInB) solved(b.get(id), "b", id);
  for (const id of onlyInA) solved(a.get(id), "a", id);
  return { n: ids.length, bothSolved, aOnly, bOnly, neither, ids, dropped: { onlyInA, onlyInB } };
}
