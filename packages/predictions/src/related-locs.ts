import type { Location } from "@loclab/schemas";

/**
 * Agentless' `found_related_locs`, in either of its two shapes: an object from file path to a
 * list of texts (CoSIL and the runs in ../shared/data/localization/cosil), or a list aligned
 * with `found_files` whose item i is the list of texts for file i (Agentless itself).
 */
export type RelatedLocsInput = Readonly<Record<string, readonly string[]>> | readonly (readonly string[])[];

/** A `function:` or `class:` line, under the file it was listed for. */
export interface RelatedSymbol {
  path: string;
  name: string;
  kind: "function" | "class";
}

export interface ParsedRelatedLocs {
  /** `function:` and `class:` lines in order: files in the order given, lines in text order (not de-duplicated). */
  symbols: RelatedSymbol[];
  /** `line: N` and `line: N-M` lines as edit spans (1-based, inclusive). */
  locations: Location[];
  /** Lines not ranked, by kind: `variable` (and any other kind), `<no name>`, `<no kind>`. */
  ignored: Record<string, number>;
  /** Why some lines or the shape could not be read: malformed spans, a list longer than `found_files`. Empty when all is well. */
  problems: string[];
}

const KIND_LINE = /^([A-Za-z_]\w*)\s*:\s*(.*)$/;
const SPAN = /^(\d+)\s*(?:-\s*(\d+))?$/;

/**
 * Reads the located symbols and lines of an Agentless-format `found_related_locs`.
 *
 * Each text holds lines `kind: value`: `function: Class.method`, `class: Name`,
 * `variable: x`, `line: 42`, `line: 40-45`. Function and class lines give symbols (CoSIL ranks
 * both as "functions", docs/definitions.md §3, in this order); a name ends at a further `": "`, as in
 * CoSIL's own `entry.split(': ')[1]` (`class: Axes.function: bar` names `Axes.function`), so
 * its preset sees the names its evaluation saw. A function or class line with no name
 * (`function:`) and other kinds are counted in `ignored`, not ranked.
 *
 * Line lines give edit spans; a span that is not `N` or `N-M` with 1 ≤ N ≤ M is a problem
 * (the caller turns problems into an error naming the file, line and instance).
 *
 * Object keys are read in insertion order (JSON.parse keeps it for non-numeric keys, and file
 * paths are never array-index-like).
 *
 * @example parseRelatedLocs({ "a.py": ["class: A\nfunction: A.f\nline: 3-4"] }).symbols
 * // [{ path: "a.py", name: "A", kind: "class" }, { path: "a.py", name: "A.f", kind: "function" }]
 */
export function parseRelatedLocs(
  related: RelatedLocsInput,
  options: { files?: readonly string[] } = {},
): ParsedRelatedLocs {
  const parsed: ParsedRelatedLocs = { symbols: [], locations: [], ignored: {}, problems: [] };
  if (Array.isArray(related)) {
    const files = options.files ?? [];
    const lists = related as readonly (readonly string[])[];
    if (lists.length > files.length) {
      parsed.problems.push(
        `found_related_locs has ${lists.length} entries but found_files only ${files.length}; the list form must align with found_files`,
      );
    }
    lists.forEach((texts, index) => {
      const path = files[index];
      if (path !== undefined) readTexts(path, texts, parsed);
    });
  } else {
    for (const [path, texts] of Object.entries(related as Readonly<Record<string, readonly string[]>>))
      readTexts(path, texts, parsed);
  }
  return parsed;
}

function readTexts(path: string, texts: readonly string[], parsed: ParsedRelatedLocs): void {
  for (const text of texts) {
    for (const rawLine of text.split("\n")) {
      const line = rawLine.trim();
      if (line === "") continue;
      readLine(path, line, parsed);
    }
  }
}

function readLine(path: string, line: string, parsed: ParsedRelatedLocs): void {
  const match = KIND_LINE.exec(line);
  if (!match) return count(parsed, "<no kind>");
  const kind = (match[1] ?? "").toLowerCase();
  const value = match[2] ?? "";
  if (kind === "function" || kind === "class") {
    const name = (value.split(": ")[0] ?? "").trim();
    if (name === "") return count(parsed, "<no name>");
    parsed.symbols.push({ path, name, kind });
    return;
  }
  if (kind === "line") {
    const span = SPAN.exec(value.trim());
    if (!span) {
      parsed.problems.push(`${path}: ${JSON.stringify(line)} is not a line number or a range N-M`);
      return;
    }
    const startLine = Number(span[1]);
    const endLine = span[2] === undefined ? startLine : Number(span[2]);
    if (startLine < 1) parsed.problems.push(`${path}: ${JSON.stringify(line)}: line numbers start at 1`);
    else if (startLine > endLine)
      parsed.problems.push(`${path}: ${JSON.stringify(line)}: start line ${startLine} is after end line ${endLine}`);
    else parsed.locations.push({ path, startLine, endLine, role: "edit" });
    return;
  }
  count(parsed, kind);
}

function count(parsed: ParsedRelatedLocs, kind: string): void {
  parsed.ignored[kind] = (parsed.ignored[kind] ?? 0) + 1;
}
