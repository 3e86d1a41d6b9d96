import { pythonSplitLines } from "@loclab/gold";
import { type SherlocFilterOptions, sherlocVisiblePaths } from "./sherloc-filter.js";
import { renderSherlocTree } from "./sherloc-tree.js";
import type { Workspace } from "./workspace.js";

/** SHERLOC's tool names, as its prompt and parser spell them. */
export const SHERLOC_TOOL_NAMES = ["view_file", "codebase_search", "repo_tree", "connected_tree"] as const;
export type SherlocToolName = (typeof SHERLOC_TOOL_NAMES)[number];

export interface SherlocToolOptions extends SherlocFilterOptions {
  /** Most lines `view_file` shows (SHERLOC's `max_view_lines`, default 1000; 0 or less: no cap). */
  maxViewLines?: number;
  /** Line counts after each file of the tree (SHERLOC's `show_line_counts`, default false). */
  showLineCounts?: boolean;
}

const SEARCH_CONTEXT = 20;
const SNIPPETS_PER_FILE = 3;
const SEARCH_TOP_FILES = 5;
const CONNECTED_LIST_MAX = 10;
const SUGGESTIONS = 3;

/**
 * SHERLOC's four tools over a loclab workspace (NVIDIA-NeMo/Skills `recipes/sherloc/inference/
 * sherloc_utils/tool_executor.py` and `repo_manager.py`; docs/definitions.md §1, "the sherloc
 * profile"), for the `sherloc` localizer profile. They see the repository as SHERLOC's loader
 * leaves it (`sherlocVisiblePaths`) and answer in SHERLOC's text formats:
 *
 * - `view_file {path, view_range?}`: `File: p (lines a-b)`, each line `%4d: text`; at most
 *   1,000 lines with a warning; a missing path gets up to 3 "did you mean" files whose name
 *   equals, contains or is contained in the requested name (case ignored);
 * - `codebase_search {query}`: a literal, case-insensitive match per line; per file up to 3
 *   snippets of 20 lines either side (matches inside a shown snippet are not repeated); the 5
 *   files with the most matches, ties by path;
 * - `repo_tree {}`: the whole filtered tree (`renderSherlocTree`), line counts if asked;
 * - `connected_tree {file?}`: a file's imports and importers (10 each), or the 10 most
 *   connected files; in SHERLOC's format, over loclab's import resolver (`PythonModuleIndex`),
 *   not SHERLOC's string-prefix matcher.
 *
 * Errors are answered as text, as SHERLOC does; nothing throws for the model's input.
 */
export class SherlocToolbox {
  private visible: Promise<string[]> | undefined;
  private visibleLookup: Set<string> | undefined;
  private readonly lines = new Map<string, string[] | null>();

  constructor(
    readonly workspace: Workspace,
    readonly options: SherlocToolOptions = {},
  ) {}

  /** The files SHERLOC's tools see, in path order. */
  paths(): Promise<string[]> {
    this.visible ??= this.workspace.paths().then((paths) => sherlocVisiblePaths([...paths].sort(), this.options));
    return this.visible;
  }

  /** The same files as a set, for lookups. */
  private async visibleSet(): Promise<Set<string>> {
    this.visibleLookup ??= new Set(await this.paths());
    return this.visibleLookup;
  }

  /** Runs one call given as SHERLOC's parser leaves it: `{tool, ...arguments}`. */
  async run(name: string, args: Record<string, unknown>): Promise<{ text: string; ok: boolean }> {
    let tool = name;
    if (tool === "")
      tool =
        "path" in args ? "view_file" : "query" in args ? "codebase_search" : "file" in args ? "connected_tree" : "";
    switch (tool) {
      case "view":
      case "view_file":
        return this.viewFile(args.path, args.view_range);
      case "codebase_search":
        return this.codebaseSearch(args.query);
      case "repo_tree":
        return { text: await this.repoTree(), ok: true };
      case "connected_tree":
        return this.connectedTree(args.file);
      case "":
        return {
          text: "Error: Cannot determine which tool to execute. Please specify 'tool' field in your JSON.",
          ok: false,
        };
      default:
        return { text: `Error: Unknown tool '${tool}'`, ok: false };
    }
  }

  /** The tree of the first user message and of `repo_tree`. */
  async repoTree(): Promise<string> {
    const paths = await this.paths();
    if (!this.options.showLineCounts) return renderSherlocTree(paths);
    const counts = new Map<string, number>();
    for (const path of paths) {
      const lines = await this.fileLines(path);
      if (lines) counts.set(path, lines.length);
    }
    return renderSherlocTree(paths, { lineCounts: counts });
  }

  private async fileLines(path: string): Promise<string[] | null> {
    if (this.lines.has(path)) return this.lines.get(path) as string[] | null;
    const read = await this.workspace.read(path);
    const lines = read.kind === "text" ? pythonSplitLines(read.bytes.toString("utf8")) : null;
    this.lines.set(path, lines);
    return lines;
  }

  private async viewFile(path: unknown, range: unknown): Promise<{ text: string; ok: boolean }> {
    if (typeof path !== "string" || path === "")
      return { text: "Error: No file path provided for the 'view' tool.", ok: false };
    const requested = path
      .split("/")
      .filter((part) => part !== "")
      .join("/");
    const lines = (await this.visibleSet()).has(requested) ? await this.fileLines(requested) : null;
    if (!lines) return { text: await this.notFound(path), ok: false };
    const max = this.options.maxViewLines ?? 1000;
    let start = 1;
    let end = lines.length;
    if (range !== undefined && range !== null) {
      if (!Array.isArray(range) || range.length !== 2 || !range.every((value) => Number.isInteger(value))) {
        return {
          text: `Error: Invalid view_range format. Expected [start, end] or [start, -1], got ${JSON.stringify(range)}`,
          ok: false,
        };
      }
      start = range[0] as number;
      end = range[1] === -1 ? lines.length : (range[1] as number);
    }
    if (start < 1) start = 1;
    if (end > lines.length) end = lines.length;
    const numbered = (from: number, to: number) =>
      lines
        .slice(from - 1, to)
        .map((line, i) => `${String(from + i).padStart(4)}: ${line}`)
        .join("\n");
    if (start > end) {
      const shown = max > 0 ? Math.min(lines.length, max) : lines.length;
      const more = lines.length > shown ? `\n\n... (${lines.length - shown} more lines truncated)` : "";
      return {
        text: `Error: Start line ${start} is greater than end line ${end}\n\nShowing entire file to help you understand the file size:\nFile: ${requested} (total lines: ${lines.length})\n${"=".repeat(80)}\n${numbered(1, shown)}${more}`,
        ok: false,
      };
    }
    let header = `File: ${requested} (lines ${start}-${end})`;
    const requestedLines = end - start + 1;
    if (max > 0 && requestedLines > max) {
      const originalEnd = end;
      end = start + max - 1;
      header += ` [TRUNCATED - Original file has ${lines.length} total lines]\nWARNING: File content truncated. Showing ${max} lines out of ${requestedLines} requested lines (original range: ${start}-${originalEnd}). Use smaller ranges to view specific sections.\n`;
    }
    return { text: `${header}\n${numbered(start, end)}`, ok: true };
  }

  /** SHERLOC's answer to a path that names no file: up to 3 files by name, equal first, then containing, then contained. */
  private async notFound(path: string): Promise<string> {
    const target = (
      path
        .split("/")
        .filter((part) => part !== "")
        .at(-1) ?? path
    ).toLowerCase();
    const scored: { path: string; score: number }[] = [];
    for (const candidate of await this.paths()) {
      const name = (candidate.split("/").at(-1) as string).toLowerCase();
      const score = name === target ? 0 : name.includes(target) ? 1 : target.includes(name) ? 2 : -1;
      if (score >= 0) scored.push({ path: candidate, score });
    }
    const suggestions = scored.sort((a, b) => a.score - b.score).slice(0, SUGGESTIONS);
    if (suggestions.length === 0)
      return `Error: File not found at path '${path}'\n\n💡 No similar files found with name '${target}'. Use the repo_tree tool to browse available files.`;
    return `Error: File not found at path '${path}'\n\n💡 Did you mean one of these files?\n${suggestions.map((s, i) => `   ${i + 1}. ${s.path}`).join("\n")}\n\nTry using the exact path from the suggestions above.`;
  }

  private async codebaseSearch(query: unknown): Promise<{ text: string; ok: boolean }> {
    if (typeof query !== "string" || query === "")
      return { text: "Error: No search query provided for codebase_search tool.", ok: false };
    const needle = query.toLowerCase();
    const results: { matches: number; text: string }[] = [];
    for (const path of await this.paths()) {
      const lines = await this.fileLines(path);
      if (!lines) continue;
      const matches: number[] = [];
      lines.forEach((line, i) => {
        if (line.toLowerCase().includes(needle)) matches.push(i);
      });
      if (matches.length === 0) continue;
      const snippets: string[] = [];
      let shownUntil = -1;
      for (const index of matches) {
        if (snippets.length >= SNIPPETS_PER_FILE) break;
        if (index < shownUntil) continue;
        const from = Math.max(0, index - SEARCH_CONTEXT);
        const to = Math.min(lines.length, index + SEARCH_CONTEXT + 1);
        const body = [];
        for (let i = from; i < to; i += 1)
          body.push(`${i === index ? ">" : " "} ${String(i + 1).padStart(4)}: ${(lines[i] as string).trimEnd()}`);
        snippets.push(`--- Snippet ${snippets.length + 1} (match on line ${index + 1}) ---\n${body.join("\n")}`);
        shownUntil = to;
      }
      const rest = matches.length - snippets.length;
      results.push({
        matches: matches.length,
        text: `File: ${path}\n\n${snippets.join("\n\n")}${rest > 0 ? `\n\n... and ${rest} more match(es) in this file.` : ""}`,
      });
    }
    if (results.length === 0) return { text: `No results found for query: '${query}'`, ok: true };
    results.sort((a, b) => b.matches - a.matches || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    const top = results.slice(0, SEARCH_TOP_FILES);
    const rule = "=".repeat(50);
    return {
      text: `Search results for: '${query}' (showing top ${top.length} files with most matches)\n${rule}\n\n${top.map((result) => result.text).join(`\n\n${rule}\n\n`)}`,
      ok: true,
    };
  }

  private async connectedTree(file: unknown): Promise<{ text: string; ok: boolean }> {
    const visible = await this.visibleSet();
    const index = await this.workspace.importIndex();
    const isModule = (path: string) => path.endsWith(".py") && visible.has(path) && index.has(path);
    if (typeof file === "string" && file !== "") {
      if (!isModule(file)) return { text: `ERROR: File '${file}' not found in repository.`, ok: false };
      // One file: only the files around it are parsed (PythonImportIndex).
      const imports = (await index.importsOf(file)).targets.filter((target) => visible.has(target));
      const importers = (await index.importersOf(file)).filter((source) => visible.has(source));
      const lines = await this.fileLines(file);
      const list = (arrow: string, title: string, paths: string[]) => {
        if (paths.length === 0) return [`\n${arrow} ${title}: None`];
        const shown = paths.slice(0, CONNECTED_LIST_MAX).map((path) => `   • ${path}`);
        const more = paths.length > CONNECTED_LIST_MAX ? [`   ... and ${paths.length - CONNECTED_LIST_MAX} more`] : [];
        return [`\n${arrow} ${title} (${paths.length}):`, ...shown, ...more];
      };
      const text = [
        `═══ ${file}${lines ? ` [${lines.length}L]` : ""} ═══`,
        ...list("→", "IMPORTS", imports),
        ...list("←", "IMPORTED BY", importers),
      ].join("\n");
      return { text, ok: true };
    }
    // The whole repository: the complete graph, built once per workspace (and cached with it).
    const graph = await this.workspace.importGraph();
    const python = (await this.paths()).filter(isModule);
    const counted: { path: string; imports: number; importedBy: number }[] = [];
    for (const path of python) {
      const out = graph.importsOf(path).filter((target) => visible.has(target)).length;
      const into = graph.importersOf(path).filter((source) => visible.has(source)).length;
      if (out + into > 0) counted.push({ path, imports: out, importedBy: into });
    }
    counted.sort(
      (a, b) =>
        b.imports + b.importedBy - (a.imports + a.importedBy) || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0),
    );
    const top = counted.slice(0, CONNECTED_LIST_MAX);
    const lines = ["═══ REPOSITORY CONNECTION SUMMARY ═══\n", "TOP CONNECTED FILES:"];
    top.forEach((entry, i) =>
      lines.push(
        `${String(i + 1).padStart(2)}. ${entry.path}`,
        `    → imports: ${entry.imports}, ← imported by: ${entry.importedBy}`,
      ),
    );
    if (counted.length > top.length) lines.push(`\n... and ${counted.length - top.length} more files with connections`);
    lines.push(`\nTOTAL: ${counted.length}/${python.length} files have import connections`);
    return { text: lines.join("\n"), ok: true };
  }
}
