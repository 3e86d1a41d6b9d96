import { comparePaths } from "./file-listing.js";
import { type MatchedPath, type UnmatchedPath, describeMatch, locateFile, renderUnmatched } from "./locate-file.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

export interface ConnectedTreeInput {
  /** A Python file, matched fuzzily like view_file's path. */
  path: string;
  /** How many import steps to follow in each direction (default 1, at most 5). */
  depth?: number;
  /** Which side to list (default both). */
  direction?: "both" | "imports" | "importedBy";
}

/** A file reached from the start file: at `depth` steps, first reached from `via` (absent at depth 1). */
export interface ConnectedFile {
  path: string;
  depth: number;
  via?: string;
}

export interface ConnectedTree extends Omit<MatchedPath, "status"> {
  status: "shown";
  depth: number;
  direction: "both" | "imports" | "importedBy";
  /** Files the start file imports, directly (depth 1) and through them. */
  imports: ConnectedFile[];
  /** Files that import the start file, directly and through them. */
  importedBy: ConnectedFile[];
  /** The start file's imports that resolve to no repository file, as written. */
  external: string[];
  /** Files reached but not listed because of `limits.connectedMaxFiles`. */
  truncated: { imports: number; importedBy: number };
}

export type ConnectedTreeResult = ConnectedTree | UnmatchedPath;

const MAX_DEPTH = 5;

/**
 * connected_tree (docs/definitions.md §1): the import graph around a Python file (see
 * `PythonModuleIndex` of @loclab/python for how imports resolve). Breadth-first in each direction: a file
 * is listed once, at the depth it is first reached, under the first file (by path) of the
 * previous depth that reaches it; each depth is ordered by path. Before the workspace's
 * complete graph is built, only the files around the start file are parsed
 * (`PythonImportIndex`), with the same answer; on a built graph a call costs microseconds.
 */
export async function connectedTree(workspace: Workspace, input: ConnectedTreeInput): Promise<ConnectedTreeResult> {
  const depth = input.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH)
    throw new ToolError("invalid-input", `depth must be an integer from 1 to ${MAX_DEPTH}, got ${String(input.depth)}`);
  const direction = input.direction ?? "both";
  const match = await locateFile(workspace, input.path, { tool: "connected_tree" });
  if (match.status !== "found") return match;
  const index = await workspace.importIndex();
  if (!index.has(match.path)) {
    throw new ToolError(
      "not-python",
      `${match.path} is not a Python module (.py, .pyi, .pyx): connected_tree follows Python imports only`,
    );
  }
  const graph = index.graphIfBuilt;
  const forward = graph
    ? async (path: string) => graph.importsOf(path)
    : async (path: string) => (await index.importsOf(path)).targets;
  const backward = graph ? async (path: string) => graph.importersOf(path) : (path: string) => index.importersOf(path);
  const cap = workspace.limits.connectedMaxFiles;
  const none = { files: [], cut: 0 };
  const imports = direction === "importedBy" ? none : await breadthFirst(match.path, depth, cap, forward);
  const importedBy = direction === "imports" ? none : await breadthFirst(match.path, depth, cap, backward);
  const external = (await index.importsOf(match.path)).external;
  const { status: _status, ...matched } = match;
  return {
    status: "shown",
    ...matched,
    depth,
    direction,
    imports: imports.files,
    importedBy: importedBy.files,
    external: [...external],
    truncated: { imports: imports.cut, importedBy: importedBy.cut },
  };
}

async function breadthFirst(
  start: string,
  depth: number,
  cap: number,
  next: (path: string) => Promise<string[]>,
): Promise<{ files: ConnectedFile[]; cut: number }> {
  const seen = new Set([start]);
  const files: ConnectedFile[] = [];
  let cut = 0;
  let level = [start];
  for (let d = 1; d <= depth && level.length > 0; d += 1) {
    const reached: string[] = [];
    for (const parent of level) {
      for (const child of await next(parent)) {
        if (seen.has(child)) continue;
        seen.add(child);
        reached.push(child);
        if (files.length < cap)
          files.push(d === 1 ? { path: child, depth: d } : { path: child, depth: d, via: parent });
        else cut += 1;
      }
    }
    level = reached.sort(comparePaths);
  }
  return { files, cut };
}

/**
 * The text the model reads: the chosen file, then each direction as an indented tree (a
 * file under the file it was reached from), then the external imports.
 */
export function renderConnectedTree(result: ConnectedTreeResult): string {
  if (result.status !== "shown") return renderUnmatched(result);
  const out = [`connected_tree ${describeMatch(result)} (depth ${result.depth})`];
  const side = (title: string, files: ConnectedFile[], cut: number) => {
    if (files.length === 0 && cut === 0) {
      out.push(`${title}: none in the repository`);
      return;
    }
    out.push(`${title} (${files.length + cut} file${files.length + cut === 1 ? "" : "s"}):`);
    const children = new Map<string | undefined, ConnectedFile[]>();
    for (const file of files) {
      const list = children.get(file.via) ?? [];
      list.push(file);
      children.set(file.via, list);
    }
    const visit = (parent: string | undefined, indent: string) => {
      for (const file of children.get(parent) ?? []) {
        out.push(`${indent}${file.path}`);
        visit(file.path, `${indent}  `);
      }
    };
    visit(undefined, "  ");
    if (cut > 0) out.push(`  [${cut} more files not listed: use a smaller depth]`);
  };
  if (result.direction !== "importedBy") side("imports", result.imports, result.truncated.imports);
  if (result.direction !== "imports") side("imported by", result.importedBy, result.truncated.importedBy);
  if (result.direction !== "importedBy")
    out.push(
      result.external.length > 0 ? `external (not in the repository): ${result.external.join(", ")}` : "external: none",
    );
  return `${out.join("\n")}\n`;
}
