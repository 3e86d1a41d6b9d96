import type { ObservedRead } from "./observed-read.js";

/** One AutoCodeRover search hit: `<file>P</file> [<class>C</class>] [<func>F</func>] <code>TEXT</code>`. */
const SEARCH_HIT =
  /<file>([^<]+)<\/file>\s*(?:<class>([^<]+)<\/class>\s*)?(?:<func>([^<]+)<\/func>\s*)?<code>([\s\S]*?)<\/code>/g;

/**
 * Reads recognised in one AutoCodeRover search call (docs/definitions.md §5): every hit of its
 * `Result of <api>(…):` block that shows code — `search_class`, `search_method`,
 * `search_method_in_class`, `search_method_in_file`, and `search_code`/`search_code_in_file` when
 * they print snippets — is a read of that file's code, named by class and function. The code has
 * no line numbers: its lines are found in the file at base commit (`resolveReads`). A result
 * that only lists files (`They appeared in the following files:`) shows no code and is no read.
 * ACR shows a large class as its signatures only; such a read is resolved by its symbol.
 */
export function searchReads(name: string, observation: string | undefined, step: number): ObservedRead[] {
  if (!name.startsWith("search_") || observation === undefined) return [];
  const reads: ObservedRead[] = [];
  for (const match of observation.matchAll(SEARCH_HIT)) {
    const path = (match[1] as string).trim().replace(/^\.\//, "");
    const symbol = [match[2], match[3]]
      .filter((s): s is string => s !== undefined && s.trim() !== "")
      .map((s) => s.trim())
      .join(".");
    const code = (match[4] as string).replace(/^\n/, "").replace(/\n$/, "");
    reads.push({ path, ...(symbol !== "" ? { symbol } : {}), code, via: name, step });
  }
  return reads;
}
