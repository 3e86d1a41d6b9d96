import type { KnownFileIndex } from "../known-files/known-file-index.js";
import type { MentionCandidate } from "./mention-candidate.js";
import type { UrlSpan } from "./url-spans.js";

/**
 * A dotted name: identifiers joined by dots, not preceded by a letter, digit, `_` or `.` (so
 * it starts where a module path starts; `self.models.query` is an attribute chain, not
 * `models.query`). Version strings (`3.2.1`) and `e.g.` are not dotted names.
 */
const DOTTED_NAME = /(?<![\p{L}\p{N}_.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+/gu;
/** A file extension written after a module path (`django.db.models.query.py`). */
const SOURCE_SUFFIXES = new Set(["py", "pyi", "pyx"]);

/**
 * Dotted module paths that resolve to a known Python file (level `modules`, docs/definitions.md §4):
 * the longest leading run of components that names a module (see
 * `KnownFileIndex.resolveModule`) is the mention. Components after it are attributes and stay
 * (`django.db.models.query.QuerySet` → `<path-1>.QuerySet`): a class or function name is a
 * symbol, masked only at level `symbols`. A trailing `.py` is part of the mention
 * (`vllm.platforms.openvino.py` → `<path-1>`). URL hosts are never module paths.
 */
export function moduleMentions(text: string, index: KnownFileIndex, urls: readonly UrlSpan[]): MentionCandidate[] {
  const candidates: MentionCandidate[] = [];
  for (const match of text.matchAll(DOTTED_NAME)) {
    const components = match[0].split(".");
    const resolved = index.resolveModule(components);
    if (!resolved) continue;
    const start = match.index as number;
    let end = start + components.slice(0, resolved.matched).join(".").length;
    const next = components[resolved.matched];
    if (next !== undefined && resolved.matched === components.length - 1 && SOURCE_SUFFIXES.has(next))
      end += next.length + 1;
    if (urls.some((url) => start < url.host.end && url.host.start < end)) continue;
    candidates.push({
      kind: "module",
      start,
      end,
      file: resolved.file,
      inferred: false,
      alternatives: resolved.alternatives,
    });
  }
  return candidates;
}
