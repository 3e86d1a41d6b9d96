import { goldFromPatch } from "@loclab/gold";
import type { FglLocation } from "./fgl-location.js";

/**
 * |a_k| (docs/definitions.md §5): the extra reads the fixer would need — the hunks of y* whose
 * changed lines (gold spans: removed runs, insertion anchors) are not all inside what ctx(z)
 * shows. One read per hunk: a hunk is one contiguous region of one file. Hunks of files y*
 * creates need no read. Line numbers are y*'s `@@` numbers.
 */
export function extraReads(patch: string, shown: readonly FglLocation[], instanceId = "<patch>"): { needed: number; hunks: number } {
  const gold = goldFromPatch(patch, { instanceId });
  const byHunk = new Map<number, typeof gold.spans>();
  for (const span of gold.spans) byHunk.set(span.hunk, [...(byHunk.get(span.hunk) ?? []), span]);
  let needed = 0;
  for (const spans of byHunk.values()) {
    const covered = spans.every((span) => shown.some((l) => l.path === span.path && l.startLine <= span.startLine && span.endLine <= l.endLine));
    if (!covered) needed += 1;
  }
  return { needed, hunks: byHunk.size };
}
