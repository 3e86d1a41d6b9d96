import { assertK, goldHitsAtK } from "./gold-hits.js";

/**
 * precision@k, docs/definitions.md §3: |P_k ∩ G| / k — over k, not over the number of predictions
 * made, so a localizer that returns fewer than k items is not rewarded for it.
 *
 * @example precisionAtK(["a.py"], new Set(["a.py"]), 5) // 0.2
 */
export function precisionAtK(ranked: readonly string[], gold: ReadonlySet<string>, k: number): number {
  assertK(k, "precisionAtK");
  return goldHitsAtK(ranked, gold, k) / k;
}
