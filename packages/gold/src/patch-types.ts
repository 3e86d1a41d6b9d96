/** How a file diff changes its file. */
export type FileChangeStatus = "modified" | "added" | "deleted" | "renamed" | "copied";

/** One line of a hunk, with its line numbers in the pre-image (old) and post-image (new). */
export interface HunkLine {
  kind: "context" | "removed" | "added";
  /** The line's text without its one-character marker; a CRLF file keeps its `\r`. */
  text: string;
  /** Pre-image line number (context and removed lines). */
  oldLine?: number;
  /** Post-image line number (context and added lines). */
  newLine?: number;
  /** Followed by `\ No newline at end of file`. */
  noNewlineAtEnd?: boolean;
  /** 1-based line of the patch this came from. */
  patchLine: number;
}

/** One `@@ -oldStart,oldLines +newStart,newLines @@ section` hunk. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The text after the closing `@@`: git's guess at the enclosing function or class. */
  section: string;
  patchLine: number;
  lines: HunkLine[];
}

/** The diff of one file. Paths are repository-relative, without `a/` / `b/` prefixes. */
export interface FilePatch {
  /** Path before the change; null when the patch creates the file. */
  oldPath: string | null;
  /** Path after the change; null when the patch deletes the file. */
  newPath: string | null;
  status: FileChangeStatus;
  /** A binary change (`Binary files … differ` or `GIT binary patch`): no hunks to read. */
  binary: boolean;
  oldMode?: string;
  newMode?: string;
  /** `similarity index N%` of a rename or copy. */
  similarity?: number;
  hunks: Hunk[];
  patchLine: number;
}
