/**
 * The number of distinct gold items among the first k predictions, |P_k ∩ G| (docs/definitions.md §3).
 * Counting distinct items makes every metric robust to a ranking that repeats an item
 * (readers de-duplicate, but a hand-made prediction might not).
 *
 * Cost: O(k).
 */
export function goldHitsAtK(ranked: readonly string[], gold: ReadonlySet<string>, k: number): number {
  const limit = Math.min(k, ranked.length);
  if (limit === 0 || gold.size === 0) return 0;
  let hits = 0;
  let seen: Set<string> | undefined;
  for (let i = 0; i < limit; i += 1) {
    const item = ranked[i] as string;
    if (!gold.has(item)) continue;
    if (seen?.has(item)) continue;
    (seen ??= new Set()).add(item);
    hits += 1;
  }
  return hits;
}

/** Refuses a k that is not a positive integer: a silent k = 0 would score everything 0. */
export function assertK(k: number, metric: string): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`${metric} requires k to be a positive integer, got ${k}`);
}
