/**
 * Reciprocal rank, docs/definitions.md §3: 1 / rank of the first gold item (1-based), 0 if none is
 * predicted. Its mean over instances is MRR.
 *
 * `cutoff` looks only at the first `cutoff` predictions (CoSIL scores its first 5 files).
 *
 * @example reciprocalRank(["x.py", "a.py"], new Set(["a.py"])) // 0.5
 */
export function reciprocalRank(
  ranked: readonly string[],
  gold: ReadonlySet<string>,
  options: { cutoff?: number } = {},
): number {
  const limit = Math.min(options.cutoff ?? ranked.length, ranked.length);
  for (let i = 0; i < limit; i += 1) if (gold.has(ranked[i] as string)) return 1 / (i + 1);
  return 0;
}
