import { assertK, goldHitsAtK } from "./gold-hits.js";

/**
 * acc@k ("all"), docs/definitions.md §3: 1 if the first k predictions contain min(|G|, k) gold items —
 * all of G when |G| ≤ k, otherwise k gold items (every one of the first k is gold). This is
 * LocAgent's acc@k. With empty gold the instance is excluded upstream; here it returns 0.
 *
 * @example accAtK(["a.py", "b.py", "x.py"], new Set(["a.py", "b.py"]), 3) // 1
 */
export function accAtK(ranked: readonly string[], gold: ReadonlySet<string>, k: number): number {
  assertK(k, "accAtK");
  if (gold.size === 0) return 0;
  return goldHitsAtK(ranked, gold, k) >= Math.min(gold.size, k) ? 1 : 0;
}
