/**
 * Average precision, docs/definitions.md §3: AP = (1/|G|) · Σ over gold items found at rank r of
 * precision@r. Its mean over instances is MAP. Repeated predictions count once.
 *
 * Options for peer rules: `cutoff` looks only at the first `cutoff` predictions (LocAgent's
 * MAP@k, CoSIL's first 5 files); `denominator` replaces |G| (LocAgent divides by k).
 *
 * @example averagePrecision(["a.py", "x.py", "b.py"], new Set(["a.py", "b.py"])) // (1 + 2/3) / 2
 */
export function averagePrecision(
  ranked: readonly string[],
  gold: ReadonlySet<string>,
  options: { cutoff?: number; denominator?: number } = {},
): number {
  const denominator = options.denominator ?? gold.size;
  if (denominator <= 0) return 0;
  const limit = Math.min(options.cutoff ?? ranked.length, ranked.length);
  const found = new Set<string>();
  let sum = 0;
  for (let i = 0; i < limit; i += 1) {
    const item = ranked[i] as string;
    if (!gold.has(item) || found.has(item)) continue;
    found.add(item);
    sum += found.size / (i + 1);
  }
  return sum / denominator;
}
