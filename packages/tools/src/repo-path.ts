import { ToolError } from "./tool-error.js";

/**
 * A path from a tool call, checked and written in repository-relative form (`a/b.py`, `""`
 * for the root), or refused with a message that says why:
 * - longer than `maxLength` characters, or holding a NUL byte;
 * - any `..` segment (even one that would stay inside: a path names a file of the checkout
 *   directly, it never climbs);
 * - absolute and not under `root` (an absolute path under `root` is made relative).
 * Surrounding white space, leading `./`, repeated and trailing slashes and `.` segments are
 * dropped. The path is not looked up here: symlinks are checked when a file is read.
 *
 * @example checkPathInput("./django//db/", { root: "/w", maxLength: 1024 }) // "django/db"
 */
export function checkPathInput(input: string, options: { root: string; maxLength: number; what?: string }): string {
  const what = options.what ?? "path";
  if (typeof input !== "string") throw new ToolError("refused", `${what} must be a string`);
  if (input.length > options.maxLength) {
    throw new ToolError("refused", `${what} is ${input.length} characters long; the limit is ${options.maxLength}`);
  }
  if (input.includes("\0")) throw new ToolError("refused", `${what} contains a NUL byte`);
  let path = input.trim();
  if (path.startsWith("/")) {
    const root = options.root.replace(/\/+$/, "");
    if (path === root || path.startsWith(`${root}/`)) path = path.slice(root.length);
    else {
      throw new ToolError(
        "refused",
        `${what} ${JSON.stringify(clip(input))} is an absolute path outside the repository: give a path relative to the repository root (e.g. "src/module.py")`,
      );
    }
  }
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) {
    throw new ToolError(
      "refused",
      `${what} ${JSON.stringify(clip(input))} contains "..": give a path relative to the repository root, without ".."`,
    );
  }
  return segments.join("/");
}

/** An input shortened for an error message. */
export function clip(text: string, length = 120): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
