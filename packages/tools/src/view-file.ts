import { streamLineChunks } from "./large-file.js";
import { type MatchedPath, type UnmatchedPath, describeMatch, locateFile, renderUnmatched } from "./locate-file.js";
import { clip } from "./repo-path.js";
import { lineStartOffsets, lineText } from "./text-lines.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

export interface ViewFileInput {
  /** Repository-relative path, matched fuzzily (see `matchPath`). */
  path: string;
  /** First line to show, 1-based (default 1). */
  start?: number;
  /** Last line to show, 1-based, inclusive (default: as many as the caps allow). */
  end?: number;
}

/** A window of a file that was shown. */
export interface ViewedFile extends Omit<MatchedPath, "status"> {
  status: "shown";
  /** Lines of the file; `null` for a file over `maxFileBytes`, which is never read to its end. */
  totalLines: number | null;
  /** First and last line shown (1-based, inclusive); `endLine` is `startLine - 1` for an empty file. */
  startLine: number;
  endLine: number;
  lines: string[];
  /** Which cap ended the window before the requested end (or before the file's end when no end was given). */
  cappedBy: "lines" | "chars" | null;
  /** Where the next window starts, when lines remain after `endLine` (or may, in a large file). */
  nextStart: number | null;
  /** A single line longer than the character cap, shown cut: its number and lengths. */
  cutLine: { line: number; shownChars: number; totalChars: number } | null;
  /** The target of a symbolic link that was followed (inside the repository). */
  symlinkTarget: string | null;
}

export type ViewFileResult = ViewedFile | UnmatchedPath;

/**
 * view_file (docs/definitions.md §1): a window of one file, with the file chosen fuzzily.
 * - Caps (`limits.viewMaxLines`, default 150 lines; `limits.viewMaxChars`, default 10,000
 *   characters of file text): the window stops before the line that would exceed either, and
 *   says so (`cappedBy`, `nextStart`). A line is never cut silently: only a single line longer
 *   than the character cap is cut, and `cutLine` says where.
 * - Refused: a path outside the repository, a binary file (a NUL byte), a window past the end
 *   of the file, `end` before `start`. A folder is refused with a pointer to repo_tree.
 * - A file over `limits.maxFileBytes` is read only up to the window (its line count is not known).
 * A requested path that names no single file gives the candidates, not an error.
 */
export async function viewFile(workspace: Workspace, input: ViewFileInput): Promise<ViewFileResult> {
  const match = await locateFile(workspace, input.path, { tool: "view_file" });
  if (match.status !== "found") return match;
  const start = input.start ?? 1;
  if (!Number.isInteger(start) || start < 1)
    throw new ToolError("invalid-input", `start must be a positive integer, got ${String(input.start)}`);
  if (input.end !== undefined && (!Number.isInteger(input.end) || input.end < start)) {
    throw new ToolError("invalid-input", `end must be an integer at least start (${start}), got ${String(input.end)}`);
  }
  const { viewMaxLines, viewMaxChars } = workspace.limits;
  const entry = await workspace.entry(match.path);
  const read = await workspace.read(match.path);
  const symlinkTarget =
    entry?.kind === "symlink" ? (await workspace.resolveInside(match.path)).slice(workspace.root.length + 1) : null;
  const base = { ...match, status: "shown" as const, symlinkTarget };
  if (read.kind === "binary")
    throw new ToolError("binary", `${match.path} is a binary file (it holds NUL bytes); it is not shown`);
  if (read.kind === "missing")
    throw new ToolError(
      "not-found",
      `No such file: ${JSON.stringify(clip(match.path))} is listed but cannot be read (${read.reason})`,
    );

  const wanted = Math.min(input.end ?? Number.POSITIVE_INFINITY, start + viewMaxLines - 1);
  const window = new WindowBuilder(start, viewMaxLines, viewMaxChars);
  if (read.kind === "text") {
    const starts = workspace.lineStarts(match.path, read.bytes);
    const totalLines = starts.length;
    if (totalLines === 0) {
      if (start > 1)
        throw new ToolError("invalid-input", `start ${start} is past the end of ${match.path}, which is empty`);
      return {
        ...base,
        totalLines,
        startLine: 1,
        endLine: 0,
        lines: [],
        cappedBy: null,
        nextStart: null,
        cutLine: null,
      };
    }
    if (start > totalLines)
      throw new ToolError(
        "invalid-input",
        `start ${start} is past the end of ${match.path}, which has ${totalLines} lines`,
      );
    const last = Math.min(wanted, totalLines);
    for (let line = start; line <= last; line += 1) if (!window.add(lineText(read.bytes, starts, line))) break;
    return { ...base, totalLines, ...window.finish({ requestedEnd: input.end ?? totalLines, totalLines }) };
  }

  // Over maxFileBytes: stream up to the window, never holding the whole file.
  let reachedEnd = true;
  const outcome = await streamLineChunks(
    read.absolutePath,
    (chunk, firstLine) => {
      const starts = lineStartOffsets(chunk);
      for (let i = 0; i < starts.length; i += 1) {
        const line = firstLine + i;
        if (line < start) continue;
        if (line > wanted || !window.add(lineText(chunk, starts, i + 1))) {
          reachedEnd = false;
          return false;
        }
      }
      return true;
      // A line is shown at most viewMaxChars characters (UTF-8: at most 4 bytes each), so no longer one is held.
    },
    { maxLineBytes: viewMaxChars * 4 + 4 },
  );
  if (outcome === "binary")
    throw new ToolError("binary", `${match.path} is a binary file (it holds NUL bytes); it is not shown`);
  if (window.count === 0) throw new ToolError("invalid-input", `start ${start} is past the end of ${match.path}`);
  const finished = window.finish({
    requestedEnd: input.end ?? Number.POSITIVE_INFINITY,
    totalLines: reachedEnd ? start + window.count - 1 : null,
  });
  return { ...base, totalLines: reachedEnd ? finished.endLine : null, ...finished };
}

class WindowBuilder {
  readonly lines: string[] = [];
  private chars = 0;
  private capped: "lines" | "chars" | null = null;
  private cut: ViewedFile["cutLine"] = null;

  constructor(
    private readonly start: number,
    private readonly maxLines: number,
    private readonly maxChars: number,
  ) {}

  get count(): number {
    return this.lines.length;
  }

  /** Adds the next line; false when a cap stops the window (the line is then not added, or added cut). */
  add(text: string): boolean {
    if (this.lines.length >= this.maxLines) {
      this.capped = "lines";
      return false;
    }
    const cost = text.length + 1;
    if (this.chars + cost > this.maxChars) {
      this.capped = "chars";
      if (this.lines.length === 0) {
        const shown = Array.from(text).slice(0, this.maxChars).join("");
        this.lines.push(shown);
        this.cut = { line: this.start, shownChars: shown.length, totalChars: text.length };
      }
      return false;
    }
    this.lines.push(text);
    this.chars += cost;
    return true;
  }

  finish(options: {
    requestedEnd: number;
    totalLines: number | null;
  }): Pick<ViewedFile, "startLine" | "endLine" | "lines" | "cappedBy" | "nextStart" | "cutLine"> {
    const endLine = this.start + this.lines.length - 1;
    const wantedMore = endLine < options.requestedEnd && (options.totalLines === null || endLine < options.totalLines);
    const cappedBy =
      wantedMore && this.capped === null && endLine - this.start + 1 >= this.maxLines
        ? "lines"
        : wantedMore
          ? this.capped
          : null;
    const more = options.totalLines === null ? true : endLine < options.totalLines;
    return {
      startLine: this.start,
      endLine,
      lines: this.lines,
      cappedBy,
      nextStart: more ? endLine + 1 : null,
      cutLine: this.cut,
    };
  }
}

/**
 * The text the model reads: a header naming the file (and why it was chosen), the lines
 * numbered like `cat -n`, and a footer saying what was left out and how to see it.
 */
export function renderViewFile(result: ViewFileResult): string {
  if (result.status !== "shown") return renderUnmatched(result);
  const total = result.totalLines === null ? "a large file, line count not computed" : `${result.totalLines} lines`;
  const link = result.symlinkTarget !== null ? ` → ${result.symlinkTarget}` : "";
  if (result.lines.length === 0) return `${describeMatch(result)}${link}: empty file\n`;
  const header = `${describeMatch(result)}${link}: lines ${result.startLine}-${result.endLine} of ${total}`;
  const width = String(result.endLine).length;
  const body = result.lines.map((text, i) => `${String(result.startLine + i).padStart(width)}\t${text}`).join("\n");
  const notes: string[] = [];
  if (result.cutLine) {
    notes.push(
      `[line ${result.cutLine.line} is ${result.cutLine.totalChars} characters long: cut after ${result.cutLine.shownChars}]`,
    );
  }
  if (result.cappedBy) {
    const cap = result.cappedBy === "lines" ? "the line cap" : "the character cap";
    notes.push(`[window ended at line ${result.endLine} by ${cap}; continue with start=${result.nextStart}]`);
  } else if (result.nextStart !== null && result.totalLines !== null) {
    notes.push(`[lines ${result.nextStart}-${result.totalLines} not shown; view them with start=${result.nextStart}]`);
  } else if (result.nextStart !== null) {
    notes.push(`[more lines may follow; view them with start=${result.nextStart}]`);
  }
  return `${header}\n${body}\n${notes.length > 0 ? `${notes.join("\n")}\n` : ""}`;
}
