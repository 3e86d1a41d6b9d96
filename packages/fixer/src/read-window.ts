/** What read_file returns: whole lines, and the range it really holds. */
export interface ReadWindow {
  text: string;
  /** 1-based, inclusive: the lines `text` holds (the last one partly when `cut` is "line"). */
  startLine: number;
  endLine: number;
  totalLines: number;
  /**
   * Why the window ends before the requested end: `lines` (the line cap), `chars` (the next whole
   * line would pass the character cap), `line` (the first line alone passes the character cap
   * and is cut inside), or `none`.
   */
  cut: "none" | "lines" | "chars" | "line";
}

export interface ReadWindowRequest {
  /** 1-based; default 1. */
  startLine?: number;
  /** 1-based, inclusive; default as far as the caps allow. */
  endLine?: number;
}

/** A request no window can answer (past the end, reversed): the message is the tool's answer. */
export class ReadWindowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReadWindowError";
  }
}

/**
 * Part of a file: its lines from `firstLine` on (possibly cut at a byte cap, inside a line), and
 * the file's line count. A cut at no fewer than `windowBytes(caps)` bytes never changes the
 * window (readWindow gives what the whole file would give).
 */
export interface FileSlice {
  text: string;
  firstLine: number;
  totalLines: number;
}

/**
 * The bytes of a file a window needs at most: each of its characters (UTF-16 units, as the
 * character cap counts them) is at most 3 bytes of UTF-8, or 4 bytes for two units, so a slice
 * of 4 × maxChars + 4 bytes always holds more than the character cap allows.
 */
export function windowBytes(caps: { maxChars: number }): number {
  return 4 * caps.maxChars + 4;
}

/**
 * The lines of a file read_file returns, within `maxLines` and `maxChars`. Unlike FGL's
 * published harness, which cut mid-line at the character cap while reporting the line cap's end
 * line, the window ends at the last whole line that fits, and `endLine` is the line it really
 * ends on; only a first line longer than the cap is cut inside, and `cut` says so. `content` is
 * the whole file, or a slice of it from the requested start line (`FileSlice`).
 */
export function readWindow(
  content: string | FileSlice,
  request: ReadWindowRequest,
  caps: { maxLines: number; maxChars: number },
): ReadWindow {
  const slice = typeof content === "string" ? undefined : content;
  const lines = splitLines(slice ? slice.text : (content as string));
  const firstLine = slice?.firstLine ?? 1;
  const totalLines = slice?.totalLines ?? lines.length;
  const startLine = checkedStart(request);
  if (totalLines === 0) {
    if (startLine === 1) return { text: "", startLine: 1, endLine: 0, totalLines: 0, cut: "none" };
    throw new ReadWindowError(`start_line ${startLine} is past the end: the file is empty`);
  }
  if (startLine > totalLines)
    throw new ReadWindowError(`start_line ${startLine} is past the end: the file has ${totalLines} lines`);
  const wantedEnd = Math.min(request.endLine ?? totalLines, totalLines);
  const lineCapEnd = startLine + caps.maxLines - 1;
  let endLine = Math.min(wantedEnd, lineCapEnd);
  let cut: ReadWindow["cut"] = endLine < wantedEnd ? "lines" : "none";
  let chars = 0;
  if (slice && startLine !== firstLine)
    throw new RangeError(`a slice from line ${firstLine} cannot answer line ${startLine}`);
  const at = (line: number) => lines[line - firstLine] ?? "";
  for (let line = startLine; line <= endLine; line += 1) {
    const length = at(line).length;
    if (chars + length > caps.maxChars) {
      if (line === startLine) {
        return { text: at(line).slice(0, caps.maxChars), startLine, endLine: line, totalLines, cut: "line" };
      }
      endLine = line - 1;
      cut = "chars";
      break;
    }
    chars += length;
  }
  return {
    text: lines.slice(startLine - firstLine, endLine - firstLine + 1).join(""),
    startLine,
    endLine,
    totalLines,
    cut,
  };
}

/** The request's start line, once it and the end line are well-formed (else the error the model gets). */
export function checkedStart(request: ReadWindowRequest): number {
  const startLine = request.startLine ?? 1;
  if (!Number.isInteger(startLine) || startLine < 1)
    throw new ReadWindowError(`start_line must be 1 or more, not ${startLine}`);
  if (request.endLine !== undefined && (!Number.isInteger(request.endLine) || request.endLine < startLine))
    throw new ReadWindowError(
      `end_line (${request.endLine}) must be a line number at or after start_line (${startLine})`,
    );
  return startLine;
}

/** Lines with their line endings kept (the last may have none). */
function splitLines(content: string): string[] {
  if (content === "") return [];
  const lines = content.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines;
}
