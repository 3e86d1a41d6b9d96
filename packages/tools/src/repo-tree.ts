import { comparePaths } from "./file-listing.js";
import { type PathFilter, anyGlobFilter } from "./glob-filter.js";
import { knownPathCategories, PATH_CATEGORIES, type PathCategory } from "./path-categories.js";
import { checkPathInput, clip } from "./repo-path.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

export interface RepoTreeInput {
  /** The folder to list (default: the repository root). */
  path?: string;
  /** Levels listed below the folder (default 2): 1 lists its direct entries only. */
  depth?: number;
  /** Only files some glob selects (see `globFilter`). */
  include?: string[];
  /** Leave out files any glob selects. */
  exclude?: string[];
  /** Hide test files and folders (default false). */
  hideTests?: boolean;
  /** Hide documentation (default false). */
  hideDocs?: boolean;
  /** Hide vendored code and minified files (default true). */
  hideVendored?: boolean;
  /** Hide dot files and folders (default true). */
  hideHidden?: boolean;
}

export interface TreeEntry {
  /** Repository-relative path. */
  path: string;
  type: "folder" | "file";
  /** 1 for the listed folder's direct entries. */
  depth: number;
  /** For a folder: the files shown below it, at any depth. */
  files?: number;
  /** For a folder at the depth limit: its content is not listed. */
  collapsed?: boolean;
}

export interface RepoTreeResult {
  path: string;
  depth: number;
  /** Folders first, then files, each by name; depth-first. */
  entries: TreeEntry[];
  /** Files not hidden by any rule, under the folder. */
  shownFiles: number;
  /** Files hidden, each counted once under the first rule that hides it. */
  hidden: { notIncluded: number; excluded: number; hidden: number; vendored: number; tests: number; docs: number };
  /** Entries not listed because of `limits.treeMaxEntries`. */
  truncated: number;
  options: {
    hideTests: boolean;
    hideDocs: boolean;
    hideVendored: boolean;
    hideHidden: boolean;
    include: string[];
    exclude: string[];
  };
}

interface Folder {
  path: string;
  folders: Map<string, Folder>;
  files: string[];
  count: number;
}

const MAX_DEPTH = 20;

/** Each path split at `/`, once per file list (a workspace's list never changes). */
const splitCache = new WeakMap<readonly string[], string[][]>();
function segmentsOf(paths: readonly string[]): string[][] {
  let split = splitCache.get(paths);
  if (!split) splitCache.set(paths, (split = paths.map((path) => path.split("/"))));
  return split;
}
const MAX_GLOBS = 50;

/**
 * repo_tree (docs/definitions.md §1): the folder hierarchy below a folder, filtered. A file is shown
 * when it passes every filter; a hidden file is counted under the first reason, in this
 * order: not selected by `include`, selected by `exclude`, then the categories of
 * `pathCategories` that are switched on (hidden, vendored, tests, docs). Folders appear when
 * they hold a shown file. Entries deeper than `depth` are summarized by their folder's file
 * count; at most `limits.treeMaxEntries` entries are listed. Same input, same output.
 */
export async function repoTree(workspace: Workspace, input: RepoTreeInput = {}): Promise<RepoTreeResult> {
  const folder = checkPathInput(input.path ?? "", { root: workspace.root, maxLength: workspace.limits.maxPathLength });
  const depth = input.depth ?? 2;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH)
    throw new ToolError("invalid-input", `depth must be an integer from 1 to ${MAX_DEPTH}, got ${String(input.depth)}`);
  if (!(await workspace.isFolder(folder))) {
    if (await workspace.entry(folder))
      throw new ToolError(
        "invalid-input",
        `${JSON.stringify(clip(folder))} is a file, not a folder: show it with view_file`,
      );
    throw new ToolError("not-found", `No such folder: ${JSON.stringify(clip(folder))}`);
  }
  const include = input.include ?? [];
  const exclude = input.exclude ?? [];
  if (include.length > MAX_GLOBS || exclude.length > MAX_GLOBS)
    throw new ToolError("refused", `at most ${MAX_GLOBS} include and ${MAX_GLOBS} exclude globs`);
  const globOptions = { maxLength: workspace.limits.maxPathLength };
  const included: PathFilter | undefined =
    include.length > 0 ? anyGlobFilter(include, { ...globOptions, what: "include glob" }) : undefined;
  const excluded: PathFilter | undefined =
    exclude.length > 0 ? anyGlobFilter(exclude, { ...globOptions, what: "exclude glob" }) : undefined;
  const options = {
    hideTests: input.hideTests ?? false,
    hideDocs: input.hideDocs ?? false,
    hideVendored: input.hideVendored ?? true,
    hideHidden: input.hideHidden ?? true,
    include,
    exclude,
  };
  const hiding: Record<PathCategory, boolean> = {
    hidden: options.hideHidden,
    vendored: options.hideVendored,
    tests: options.hideTests,
    docs: options.hideDocs,
  };

  const hidden = { notIncluded: 0, excluded: 0, hidden: 0, vendored: 0, tests: 0, docs: 0 };
  const top: Folder = { path: folder, folders: new Map(), files: [], count: 0 };
  const prefix = folder === "" ? "" : `${folder}/`;
  const paths = await workspace.paths();
  const allSegments = segmentsOf(paths);
  for (let index = 0; index < paths.length; index += 1) {
    const path = paths[index] as string;
    if (!path.startsWith(prefix)) continue;
    if (included && !included(path)) {
      hidden.notIncluded += 1;
      continue;
    }
    if (excluded?.(path)) {
      hidden.excluded += 1;
      continue;
    }
    const categories = knownPathCategories(path);
    const category =
      categories.length === 0 ? undefined : PATH_CATEGORIES.find((name) => hiding[name] && categories.includes(name));
    if (category) {
      hidden[category] += 1;
      continue;
    }
    const segments = prefix === "" ? (allSegments[index] as string[]) : path.slice(prefix.length).split("/");
    let node = top;
    node.count += 1;
    // Only the levels shown are built: a folder at `depth` is collapsed to its count, so what is
    // below it never needs a node (the tree of a large repository is not rebuilt on every call).
    const folders = segments.length - 1;
    for (let level = 0; level < Math.min(folders, depth); level += 1) {
      const segment = segments[level] as string;
      let next = node.folders.get(segment);
      if (!next) {
        next = {
          path: node.path === "" ? segment : `${node.path}/${segment}`,
          folders: new Map(),
          files: [],
          count: 0,
        };
        node.folders.set(segment, next);
      }
      next.count += 1;
      node = next;
    }
    if (folders < depth) node.files.push(path);
  }

  const entries: TreeEntry[] = [];
  let truncated = 0;
  const push = (entry: TreeEntry) => {
    if (entries.length < workspace.limits.treeMaxEntries) entries.push(entry);
    else truncated += 1;
  };
  const visit = (node: Folder, level: number) => {
    for (const name of [...node.folders.keys()].sort(comparePaths)) {
      const child = node.folders.get(name) as Folder;
      const collapsed = level === depth;
      push({
        path: child.path,
        type: "folder",
        depth: level,
        files: child.count,
        ...(collapsed ? { collapsed: true } : {}),
      });
      if (!collapsed) visit(child, level + 1);
    }
    for (const file of [...node.files].sort(comparePaths)) push({ path: file, type: "file", depth: level });
  };
  visit(top, 1);
  return { path: folder, depth, entries, shownFiles: top.count, hidden, truncated, options };
}

/**
 * The text the model reads: a summary (files shown, files hidden by each rule and how to
 * show them), then one entry per line, indented by depth, folders with a trailing `/` and,
 * when collapsed, their file count.
 */
export function renderRepoTree(result: RepoTreeResult): string {
  const name = result.path === "" ? "." : result.path;
  const reasons: [keyof RepoTreeResult["hidden"], string, string][] = [
    ["notIncluded", "not matching include", ""],
    ["excluded", "excluded", ""],
    ["hidden", "hidden (dot files)", "hideHidden=false"],
    ["vendored", "vendored", "hideVendored=false"],
    ["tests", "tests", "hideTests=false"],
    ["docs", "docs", "hideDocs=false"],
  ];
  const hiddenParts = reasons
    .filter(([key]) => result.hidden[key] > 0)
    .map(([key, label, flag]) => `${result.hidden[key]} ${label}${flag ? ` (${flag} shows them)` : ""}`);
  const header =
    `repo_tree ${name} (depth ${result.depth}): ${result.shownFiles} file${result.shownFiles === 1 ? "" : "s"} shown` +
    (hiddenParts.length > 0 ? `; hidden: ${hiddenParts.join(", ")}` : "");
  const lines = result.entries.map((entry) => {
    const indent = "  ".repeat(entry.depth - 1);
    const base = entry.path.slice(entry.path.lastIndexOf("/") + 1);
    if (entry.type === "file") return `${indent}${base}`;
    return `${indent}${base}/${entry.collapsed ? ` (${entry.files} file${entry.files === 1 ? "" : "s"})` : ""}`;
  });
  const footer =
    result.truncated > 0
      ? `[${result.truncated} more entries not listed: use a smaller depth, a deeper path or include globs]\n`
      : "";
  return `${header}\n${lines.length > 0 ? `${lines.join("\n")}\n` : ""}${footer}`;
}
