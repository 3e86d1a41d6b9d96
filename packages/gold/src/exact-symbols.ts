import type { ExactGold, ExactGoldSymbol, SourceDefinition } from "./gold-types.js";
import { changeSites, type ChangeSite } from "./change-sites.js";
import type { Hunk } from "./patch-types.js";

/**
 * The innermost definition a change site belongs to (docs/definitions.md §2, exact symbols):
 * - a removed line belongs to the innermost definition whose lines (decorators included)
 *   hold it;
 * - an insertion after line `a` belongs to the innermost definition that holds both `a` and
 *   `a + 1`, or that ends at `a` (or at the last code line above `a`, only blank lines between)
 *   while the inserted code is indented deeper than its first line: a method appended after
 *   the last one of a class is the class's (indented as the methods, deeper than the class), a
 *   statement appended to a function's body is the function's; a top-level function appended
 *   at the end of a module is nobody's.
 * Undefined: the site is at module level. Pure.
 */
export function definitionAt(site: ChangeSite, definitions: readonly SourceDefinition[]): SourceDefinition | undefined {
  let best: SourceDefinition | undefined;
  for (const definition of definitions) {
    const holds =
      site.kind === "removed"
        ? definition.startLine <= site.line && site.line <= definition.endLine
        : definition.startLine <= site.after &&
          (site.after + 1 <= definition.endLine ||
            (site.afterCode <= definition.endLine &&
              definition.endLine <= site.after &&
              site.indent !== undefined &&
              site.indent > definition.indent));
    if (
      holds &&
      (!best ||
        definition.startLine > best.startLine ||
        (definition.startLine === best.startLine && definition.endLine < best.endLine))
    )
      best = definition;
  }
  return best;
}

/** One gold file's hunks, placed on the real pre-image, with the parse of that pre-image. */
export interface ParsedGoldFile {
  path: string;
  /** The file's hunks in real pre-image numbers, each with its index into `GoldLocations.hunks`. */
  hunks: readonly { hunk: Hunk; index: number }[];
  /** Undefined when the file's language is not parsed. */
  definitions: readonly SourceDefinition[] | undefined;
}

/**
 * Exact gold symbols of a patch's gold files: every change site attributed to its innermost
 * definition (`definitionAt`), named `path:Outer.inner`, in patch order, without repeats; the
 * module-level gold is the outermost definition of each. Sites inside no definition are
 * listed as module-level edits. Pure.
 */
export function exactGold(files: readonly ParsedGoldFile[]): ExactGold {
  const symbols: ExactGoldSymbol[] = [];
  const byId = new Map<string, ExactGoldSymbol>();
  const moduleLevel: ExactGold["moduleLevel"] = [];
  const unparsedFiles: string[] = [];
  for (const file of files) {
    if (!file.definitions) {
      unparsedFiles.push(file.path);
      continue;
    }
    for (const { hunk, index } of file.hunks) {
      for (const site of changeSites(hunk)) {
        const definition = definitionAt(site, file.definitions);
        if (!definition) {
          const line = site.kind === "removed" ? site.line : Math.max(site.after, 1);
          if (!moduleLevel.some((entry) => entry.path === file.path && entry.line === line))
            moduleLevel.push({ path: file.path, line, hunk: index });
          continue;
        }
        const id = `${file.path}:${definition.qualifiedName}`;
        const known = byId.get(id);
        if (known) {
          if (!known.hunks.includes(index)) known.hunks.push(index);
          continue;
        }
        const symbol: ExactGoldSymbol = {
          path: file.path,
          name: definition.qualifiedName,
          kind: definition.kind,
          startLine: definition.startLine,
          endLine: definition.endLine,
          hunks: [index],
        };
        byId.set(id, symbol);
        symbols.push(symbol);
      }
    }
  }
  const functions = symbols.map((symbol) => `${symbol.path}:${symbol.name}`);
  const modules = [...new Set(symbols.map((symbol) => `${symbol.path}:${symbol.name.split(".")[0]}`))];
  return { symbols, functions, modules, moduleLevel, unparsedFiles };
}
