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
 * The lines of a file read_file returns, within `maxLines` and `maxChars`. Unlike FGL's
 * published harness, which cut mid-line at the character cap while reporting the line cap's end
 * line, the window ends at the last whole line that fits, and `endLine` is the line it really
 * ends on; only a first line longer than the cap is cut inside, and `cut` says so.
 */
export function readWindow(
  content: string,
  request: ReadWindowRequest,
  caps: { maxLines: number; maxChars: number },
): ReadWindow {
  const lines = splitLines(content);
  const totalLines = lines.length;
  const startLine = request.startLine ?? 1;
  if (!Number.isInteger(startLine) || startLine < 1)
    throw new ReadWindowError(`start_line must be 1 or more, not ${startLine}`);
  if (request.endLine !== undefined && (!Number.isInteger(request.endLine) || request.endLine < startLine))
    throw new ReadWindowError(
      `end_line (${request.endLine}) must be a line number at or after start_line (${startLine})`,
    );
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
  for (let line = startLine; line <= endLine; line += 1) {
    const length = lines[line - 1]!.length;
    if (chars + length > caps.maxChars) {
      if (line === startLine) {
        return { text: lines[line - 1]!.slice(0, caps.maxChars), startLine, endLine: line, totalLines, cut: "line" };
      }
      endLine = line - 1;
      cut = "chars";
      break;
    }
    chars += length;
  }
  return { text: lines.slice(startLine - 1, endLine).join(""), startLine, endLine, totalLines, cut };
}

/** Lines with their line endings kept (the last may have none). */
function splitLines(content: string): string[] {
  if (content === "") return [];
  const lines = content.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines;
}
