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
  const what = options.what ?? "glob";
  if (typeof glob !== "string") throw new ToolError("refused", `${what} must be a string`);
  if (glob.length > options.maxLength) throw new ToolError("refused", `${what} is ${glob.length} characters long; the limit is ${options.maxLength}`);
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
  if (pattern.split("/").includes("..")) throw new ToolError("refused", `${what} ${JSON.stringify(clip(glob))} contains "..": globs match paths inside the repository`);
  const unbalanced = unbalancedBracket(pattern);
  if (unbalanced) throw new ToolError("invalid-input", `${what} ${JSON.stringify(clip(glob))} has an unclosed "${unbalanced}" (it would match nothing); write \\${unbalanced} for a literal one`);
  let matcher: (path: string) => boolean;
  try {
    matcher = picomatch(pattern, { dot: true });
  } catch (error) {
    throw new ToolError("invalid-input", `${what} ${JSON.stringify(clip(glob))} is not a valid glob: ${(error as Error).message}`);
  }
  const positive: PathFilter = anchored
    ? (path) => {
        let slash = path.indexOf("/");
        while (slash >= 0) {
          if (matcher(path.slice(0, slash))) return true;
          slash = path.indexOf("/", slash + 1);
        }
        return !foldersOnly && matcher(path);
      }
    : (path) => {
        const segments = path.split("/");
        const last = foldersOnly ? segments.length - 1 : segments.length;
        for (let i = 0; i < last; i += 1) if (matcher(segments[i] as string)) return true;
        return false;
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
