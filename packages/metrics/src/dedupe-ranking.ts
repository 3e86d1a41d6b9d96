/**
 * A ranking without repeats, keeping each item's first (best) rank, and how many repeats
 * were dropped (readers report the count).
 */
export function dedupeRanking(ranked: readonly string[]): { ranking: string[]; removed: number } {
  const seen = new Set<string>();
  const ranking: string[] = [];
  for (const item of ranked) {
    if (seen.has(item)) continue;
    seen.add(item);
    ranking.push(item);
  }
  return { ranking, removed: ranked.length - ranking.length };
}

/**
 * The ranking itself when it has no repeat (the usual case: readers de-duplicate), else a
 * de-duplicated copy. Short lists are checked pairwise, which beats building a Set.
 */
export function withoutRepeats(ranked: readonly string[]): readonly string[] {
  const n = ranked.length;
  if (n > 32) return hasRepeatBySet(ranked) ? dedupeRanking(ranked).ranking : ranked;
  for (let i = 1; i < n; i += 1) {
    const item = ranked[i];
    for (let j = 0; j < i; j += 1) if (ranked[j] === item) return dedupeRanking(ranked).ranking;
  }
  return ranked;
}

function hasRepeatBySet(ranked: readonly string[]): boolean {
  return new Set(ranked).size !== ranked.length;
}
