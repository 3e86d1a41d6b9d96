import { assertK, goldHitsAtK } from "./gold-hits.js";

/**
 * recall@k, docs/definitions.md §3: |P_k ∩ G| / |G|.
 *
 * `denominator` replaces |G| for peer rules: LocAgent divides by min(|G|, largest k of the
 * level) (see the `locagent` preset). A zero denominator gives 0.
 *
 * @example recallAtK(["a.py", "x.py"], new Set(["a.py", "b.py"]), 2) // 0.5
 */
export function recallAtK(
  ranked: readonly string[],
  gold: ReadonlySet<string>,
  k: number,
  options: { denominator?: number } = {},
): number {
  assertK(k, "recallAtK");
  const denominator = options.denominator ?? gold.size;
  if (denominator <= 0) return 0;
  return goldHitsAtK(ranked, gold, k) / denominator;
}
