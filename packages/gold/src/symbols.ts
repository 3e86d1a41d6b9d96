import type { GoldSymbol } from "./gold-types.js";

/**
 * Definition lines git's hunk-header heuristics commonly show, by language family.
 * Order matters: the first pattern that matches names the symbol.
 */
const DEFINITIONS: { pattern: RegExp; kind: GoldSymbol["kind"] }[] = [
  // Python
  { pattern: /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/, kind: "function" },
  { pattern: /^\s*class\s+([A-Za-z_]\w*)\s*[(:]/, kind: "class" },
  // JavaScript / TypeScript
  {
    pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*[(<]/,
    kind: "function",
  },
  { pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/, kind: "class" },
  // Go (functions and methods)
  { pattern: /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*[([]/, kind: "function" },
  // Rust
  { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)/, kind: "function" },
  { pattern: /^\s*impl(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?([A-Za-z_][\w:]*)/, kind: "impl" },
];

/**
 * The symbol a hunk header's section text names, if any (`def _cstack(left, right):` →
 * `_cstack`, function). Returns undefined for sections that are not definitions
 * (`import (`, `go 1.22.2`).
 */
export function symbolFromHunkSection(section: string): { name: string; kind: GoldSymbol["kind"] } | undefined {
  for (const { pattern, kind } of DEFINITIONS) {
    const name = pattern.exec(section)?.[1];
    if (name) return { name, kind };
  }
  return undefined;
}
