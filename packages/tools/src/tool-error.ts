/**
 * Why a tool call produced no result:
 * - `refused`: the input breaks a safety rule (a path outside the checkout, `..`, a NUL
 *   byte, an over-long input, a symlink that points outside);
 * - `invalid-input`: the input is well-formed but unusable (an empty query, a line window
 *   past the end of the file, a glob that cannot be compiled);
 * - `not-found`: the path names nothing in the repository;
 * - `binary`: the file is not text;
 * - `not-python`: `connected_tree` was asked about a file that is not Python source.
 */
export type ToolErrorCode = "refused" | "invalid-input" | "not-found" | "binary" | "not-python";

/**
 * An expected failure of a tool call, with a message written for the model that made the
 * call: it says what was wrong and, where possible, what to do instead. Anything else a tool
 * throws is a bug, not an observation.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A workspace that cannot be materialized: no mirror, not a git repository, an unknown commit. */
export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
  constructor(
    readonly code:
      | "no-mirror"
      | "not-a-git-repository"
      | "unknown-commit"
      | "partial-mirror"
      | "invalid-instance"
      | "git-failed"
      | "not-a-directory",
    message: string,
  ) {
    super(message);
  }
}
