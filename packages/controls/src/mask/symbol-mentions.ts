import type { MaskSymbol } from "./mask-types.js";
import type { MentionCandidate } from "./mention-candidate.js";

/**
 * Whole-word occurrences of gold symbol names (level `symbols`, docs/definitions.md §4): the name not
 * preceded or followed by a letter, digit or `_`, case-sensitive (`_cstack` in
 * `self._cstack(x)` but not in `_cstack_all`). Every occurrence counts, prose included: a
 * symbol named like a word (`get`) is masked in sentences too. A name given for two files is
 * masked once, for the first file listed.
 */
export function symbolMentions(text: string, symbols: readonly MaskSymbol[]): MentionCandidate[] {
  const fileOf = new Map<string, string>();
  for (const symbol of symbols)
    if (symbol.name !== "" && !fileOf.has(symbol.name)) fileOf.set(symbol.name, symbol.path);
  const candidates: MentionCandidate[] = [];
  for (const [name, file] of fileOf) {
    const word = new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(name)}(?![\\p{L}\\p{N}_$])`, "gu");
    for (const match of text.matchAll(word)) {
      const start = match.index as number;
      candidates.push({
        kind: "symbol",
        start,
        end: start + name.length,
        file,
        inferred: false,
        alternatives: [],
        symbol: name,
      });
    }
  }
  return candidates;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
