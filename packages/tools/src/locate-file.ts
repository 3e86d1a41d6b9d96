import { type PathMatch, type PathMatchRule, matchPath } from "./fuzzy-path.js";
import { checkPathInput, clip } from "./repo-path.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

/** A requested path that named no single file: what was asked and what came close. */
export interface UnmatchedPath {
  status: "ambiguous" | "not-found";
  requested: string;
  /** For `ambiguous`: the rule that matched several files. */
  rule?: Exclude<PathMatchRule, "exact">;
  candidates: string[];
  /** All candidates, when more than listed. */
  total: number;
}

/** A requested path matched to one file. */
export interface MatchedPath {
  status: "found";
  requested: string;
  path: string;
  rule: PathMatchRule;
  alternatives: string[];
}

/**
 * The file a tool call names: the input is checked (`checkPathInput`), a folder is refused
 * with a pointer to repo_tree, and the rest goes through `matchPath`.
 */
export async function locateFile(
  workspace: Workspace,
  input: string,
  options: { tool: string },
): Promise<MatchedPath | UnmatchedPath> {
  const requested = checkPathInput(input, { root: workspace.root, maxLength: workspace.limits.maxPathLength });
  if (requested === "")
    throw new ToolError(
      "invalid-input",
      `${options.tool} needs a file path; the repository root is a folder: list it with repo_tree`,
    );
  const entry = await workspace.entry(requested);
  if (!entry && (await workspace.isFolder(requested))) {
    throw new ToolError(
      "invalid-input",
      `${JSON.stringify(clip(requested))} is a folder, not a file: list it with repo_tree (path: ${JSON.stringify(clip(requested))})`,
    );
  }
  const match: PathMatch = entry
    ? { status: "found", path: requested, rule: "exact", alternatives: [] }
    : matchPath(await workspace.paths(), requested);
  if (match.status === "found") return { ...match, requested };
  if (match.status === "ambiguous")
    return { status: "ambiguous", requested, rule: match.rule, candidates: match.candidates, total: match.total };
  return { status: "not-found", requested, candidates: match.candidates, total: match.candidates.length };
}

/** How the rendering says which file was chosen and why. */
export function describeMatch(match: Omit<MatchedPath, "status">): string {
  switch (match.rule) {
    case "exact":
      return match.path;
    case "case-insensitive":
      return `${match.path} (no file ${JSON.stringify(match.requested)}; chosen ignoring case)`;
    case "suffix":
      return `${match.path} (the only file whose path ends with ${JSON.stringify(match.requested)})`;
    case "basename": {
      const others = match.alternatives.length > 0 ? `; other close names: ${match.alternatives.join(", ")}` : "";
      return `${match.path} (no file ${JSON.stringify(match.requested)}; chosen as the closest file name${others})`;
    }
  }
}

/** The rendering of a path that named no single file. "No such file" starts the not-found case, as agents' logs expect. */
export function renderUnmatched(result: UnmatchedPath): string {
  const more = result.total > result.candidates.length ? `\n… and ${result.total - result.candidates.length} more` : "";
  if (result.status === "ambiguous") {
    const why =
      result.rule === "basename"
        ? "equally close file names"
        : result.rule === "suffix"
          ? "files ending with it"
          : "files matching it ignoring case";
    return `${JSON.stringify(result.requested)} is ambiguous: ${result.total} ${why}. Give one of these paths:\n${result.candidates.join("\n")}${more}\n`;
  }
  return `No such file: ${JSON.stringify(result.requested)}; no file of the repository has a close name. Use repo_tree or search_code to find it.\n`;
}
