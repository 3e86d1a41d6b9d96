/**
 * Line arithmetic on file bytes. A line ends at `\n` (a `\r` before it belongs to the line
 * break, not the text); a final `\n` ends the last line and does not start another: `"a\nb\n"`
 * and `"a\nb"` both have 2 lines, `""` has 0. Bytes are decoded as UTF-8 with U+FFFD for
 * invalid sequences (what a Latin-1 file shows), so byte offsets never split a character that
 * the line break could be part of (`\n` never occurs inside a UTF-8 sequence).
 */

const NEWLINE = 0x0a;

/** Byte offsets where each line starts (`[0, …]`; empty for an empty buffer). */
export function lineStartOffsets(bytes: Uint8Array): Uint32Array {
  if (bytes.length === 0) return new Uint32Array(0);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const starts: number[] = [0];
  let at = buffer.indexOf(NEWLINE);
  while (at >= 0 && at + 1 < buffer.length) {
    starts.push(at + 1);
    at = buffer.indexOf(NEWLINE, at + 1);
  }
  return Uint32Array.from(starts);
}

/** The 1-based line that holds byte `offset`, by binary search over `lineStartOffsets`. */
export function lineAtOffset(starts: Uint32Array, offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** The byte range `[start, end)` of 1-based line `line`, without its line break. */
export function lineByteRange(bytes: Uint8Array, starts: Uint32Array, line: number): { start: number; end: number } {
  const start = starts[line - 1] as number;
  let end = line < starts.length ? (starts[line] as number) - 1 : bytes.length;
  if (end > start && bytes[end - 1] === NEWLINE) end -= 1;
  if (end > start && bytes[end - 1] === 0x0d) end -= 1;
  return { start, end };
}

/** The text of 1-based line `line`. */
export function lineText(bytes: Buffer, starts: Uint32Array, line: number): string {
  const { start, end } = lineByteRange(bytes, starts, line);
  return bytes.toString("utf8", start, end);
}
