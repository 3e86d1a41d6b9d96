import picomatch from "picomatch";
import { clip } from "./repo-path.js";
import { ToolError } from "./tool-error.js";

/** Whether a repository-relative file path is selected. */
export type PathFilter = (path: string) => boolean;

/**
 * A glob as the tools read it (the same rules in search_code's `glob` and repo_tree's
 * `include` / `exclude`), on repository-relative paths with `/` separators, via picomatch:
 * - `*` and `?` stay inside one path segment, `**` crosses segments, `[abc]` and `{a,b}` as
 *   usual; dot files match like any other (`*` matches `.github`);
 * - a glob without `/` matches a file when it matches the file's name or the name of any
 *   folder above it (`*.py`, `tests`, `__init__.py`), at any depth;
 * - a glob with `/` is anchored at the repository root (a leading `/` or `./` is dropped) and
 *   matches a file when it matches the file's whole path or the path of a folder above it
 *   (`django/db` selects everything under `django/db/`; `django/*.py` only files directly in it);
 * - a trailing `/` restricts the glob to folders (`docs/`);
 * - a leading `!` negates the whole glob (`!*.min.js`: every file that `*.min.js` does not select).
 * Matching is case-sensitive. A glob longer than `maxLength`, or with a NUL byte, is refused.
 *
 * @example globFilter("django/db")("django/db/models/query.py") // true
 */
export function globFilter(glob: string, options: { maxLength: number; what?: string }): PathFilter {
  // Agents repeat their globs (`*.py` again and again): a compiled filter, with what it has
  // matched so far, is kept for the next call with the same glob.
  const key = `${options.what ?? "glob"}\0${options.maxLength}\0${glob}`;
  const known = compiled.get(key);
  if (known) {
    compiled.delete(key);
    compiled.set(key, known);
    return known;
  }
  const filter = compileGlobFilter(glob, options);
  compiled.set(key, filter);
  if (compiled.size > COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
  return filter;
}

/** Compiled filters kept, least recently used dropped first. */
const COMPILED_KEPT = 64;
const compiled = new Map<string, PathFilter>();

function compileGlobFilter(glob: string, options: { maxLength: number; what?: string }): PathFilter {
  const what = options.what ?? "glob";
  if (typeof glob !== "string") throw new ToolError("refused", `${what} must be a string`);
  if (glob.length > options.maxLength)
    throw new ToolError("refused", `${what} is ${glob.length} characters long; the limit is ${options.maxLength}`);
  if (glob.includes("\0")) throw new ToolError("refused", `${what} contains a NUL byte`);
  let pattern = glob.trim();
  let negated = false;
  if (pattern.startsWith("!")) {
    negated = true;
    pattern = pattern.slice(1);
  }
  while (pattern.startsWith("./")) pattern = pattern.slice(2);
  const anchored = pattern.startsWith("/") || pattern.replace(/\/+$/, "").includes("/");
  pattern = pattern.replace(/^\/+/, "");
  const foldersOnly = pattern.endsWith("/");
  pattern = pattern.replace(/\/+$/, "");
  if (pattern === "") throw new ToolError("invalid-input", `${what} ${JSON.stringify(clip(glob))} is empty`);
  if (pattern.split("/").includes(".."))
    throw new ToolError(
      "refused",
      `${what} ${JSON.stringify(clip(glob))} contains "..": globs match paths inside the repository`,
    );
  const unbalanced = unbalancedBracket(pattern);
  if (unbalanced)
    throw new ToolError(
      "invalid-input",
      `${what} ${JSON.stringify(clip(glob))} has an unclosed "${unbalanced}" (it would match nothing); write \\${unbalanced} for a literal one`,
    );
  let matcher: (path: string) => boolean;
  try {
    // A glob without wildcards is a plain name or path: compared as a string.
    const literal = pattern.replace(/\\(.)/g, "$1");
    matcher = picomatch.scan(pattern).isGlob
      ? picomatch(pattern, { dot: true })
      : (candidate: string) => candidate === literal;
  } catch (error) {
    throw new ToolError(
      "invalid-input",
      `${what} ${JSON.stringify(clip(glob))} is not a valid glob: ${(error as Error).message}`,
    );
  }
  // Names and folders repeat across a listing's files (`__init__.py`, `django/db`): each is
  // matched once per compiled filter, and a file costs one look-up for its folder.
  const names = new Map<string, boolean>();
  const nameMatch = (name: string) => {
    let matched = names.get(name);
    if (matched === undefined) {
      matched = matcher(name);
      names.set(name, matched);
    }
    return matched;
  };
  /** Whether a folder, or one above it, is selected: by its path (anchored) or by its name. */
  const folders = new Map<string, boolean>();
  const folderSelected = (folder: string): boolean => {
    let selected = folders.get(folder);
    if (selected === undefined) {
      const slash = folder.lastIndexOf("/");
      selected =
        (anchored ? matcher(folder) : nameMatch(folder.slice(slash + 1))) ||
        (slash > 0 && folderSelected(folder.slice(0, slash)));
      folders.set(folder, selected);
    }
    return selected;
  };
  const positive: PathFilter = (path) => {
    const slash = path.lastIndexOf("/");
    if (slash > 0 && folderSelected(path.slice(0, slash))) return true;
    if (foldersOnly) return false;
    return anchored ? matcher(path) : nameMatch(path.slice(slash + 1));
  };
  return negated ? (path) => !positive(path) : positive;
}

/** A file is selected when it matches any of `globs` (an empty list selects nothing). */
export function anyGlobFilter(globs: readonly string[], options: { maxLength: number; what?: string }): PathFilter {
  const filters = globs.map((glob) => globFilter(glob, options));
  return (path) => filters.some((filter) => filter(path));
}

/** The first `[` or `{` of a glob that is never closed (escapes with `\\` respected), if any. */
function unbalancedBracket(pattern: string): "[" | "{" | undefined {
  let square = false;
  let braces = 0;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i];
    if (ch === "\\") {
      i += 1;
      continue;
    }
    if (square) {
      if (ch === "]") square = false;
      continue;
    }
    if (ch === "[") square = true;
    else if (ch === "{") braces += 1;
    else if (ch === "}" && braces > 0) braces -= 1;
  }
  return square ? "[" : braces > 0 ? "{" : undefined;
}

/** Selections kept per listing (the array of files a workspace gives), by glob. */
const selections = new WeakMap<readonly { path: string }[], Map<string, Uint8Array>>();
const SELECTIONS_KEPT = 32;

/**
 * Which files of a listing a glob selects, by position (1 = selected), computed once per
 * listing and glob and kept while the listing lives: an agent's repeated `glob: "*.py"`
 * then costs an array read per file.
 */
export function selectionOf(files: readonly { path: string }[], glob: string, filter: PathFilter): Uint8Array {
  let byGlob = selections.get(files);
  if (!byGlob) {
    byGlob = new Map();
    selections.set(files, byGlob);
  }
  let selected = byGlob.get(glob);
  if (!selected) {
    selected = Uint8Array.from(files, (file) => (filter(file.path) ? 1 : 0));
    byGlob.set(glob, selected);
    if (byGlob.size > SELECTIONS_KEPT) byGlob.delete(byGlob.keys().next().value as string);
  }
  return selected;
}
