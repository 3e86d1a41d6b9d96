import { assertK, goldHitsAtK } from "./gold-hits.js";

/**
 * hit@k ("any"), docs/definitions.md §3: 1 if at least one gold item is among the first k predictions,
 * else 0. CoSIL and Agentless call this "top-k accuracy".
 *
 * @example hitAtK(["a.py", "b.py"], new Set(["b.py", "c.py"]), 1) // 0
 */
export function hitAtK(ranked: readonly string[], gold: ReadonlySet<string>, k: number): number {
  assertK(k, "hitAtK");
  return goldHitsAtK(ranked, gold, k) > 0 ? 1 : 0;
}
