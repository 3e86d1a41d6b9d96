import type { TextSpan } from "./mention-candidate.js";

/**
 * Non-overlapping mentions of a text, longest first: candidates are taken in order of
 * decreasing length (ties: the earlier start, then the lower `rank`), each kept when it
 * overlaps none kept before. Returned in text order. Empty candidates are dropped.
 * Shared by path masking and repository shuffling's issue-text mapping (docs/definitions.md §4).
 * Cost: O(c log c + covered characters) for c candidates.
 */
export function longestFirst<T extends TextSpan>(
  candidates: readonly T[],
  length: number,
  rank: (candidate: T) => number,
): T[] {
  const ordered = [...candidates].sort(
    (a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start || rank(a) - rank(b),
  );
  const taken = new Uint8Array(length);
  const chosen: T[] = [];
  for (const candidate of ordered) {
    if (candidate.end <= candidate.start) continue;
    if (taken.subarray(candidate.start, candidate.end).includes(1)) continue;
    taken.fill(1, candidate.start, candidate.end);
    chosen.push(candidate);
  }
  return chosen.sort((a, b) => a.start - b.start);
}
