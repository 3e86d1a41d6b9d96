import { goldFromPatch, type GoldSpan } from "@loclab/gold";
import type { FglLocation } from "./fgl-location.js";

/** The changed-line spans of y*, grouped by hunk (the §2 gold spans: removed runs, insertion anchors). */
export function patchHunks(patch: string, instanceId = "<patch>"): GoldSpan[][] {
  const byHunk = new Map<number, GoldSpan[]>();
  for (const span of goldFromPatch(patch, { instanceId }).spans)
    byHunk.set(span.hunk, [...(byHunk.get(span.hunk) ?? []), span]);
  return [...byHunk.values()];
}

/**
 * |a_k| (docs/definitions.md §5): the extra reads the fixer would need — the hunks of y* whose
 * changed lines are not all inside what ctx(z) shows. One read per hunk: a hunk is one
 * contiguous region of one file. Hunks of files y* creates need no read. Line numbers are y*'s
 * `@@` numbers. Takes the patch, or its `patchHunks` when scoring many candidates of one task.
 */
export function extraReads(
  patch: string | readonly GoldSpan[][],
  shown: readonly FglLocation[],
): { needed: number; hunks: number } {
  const hunks = typeof patch === "string" ? patchHunks(patch) : patch;
  const covered = (span: GoldSpan) =>
    shown.some((l) => l.path === span.path && l.startLine <= span.startLine && span.endLine <= l.endLine);
  return { needed: hunks.filter((spans) => !spans.every(covered)).length, hunks: hunks.length };
}
