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
