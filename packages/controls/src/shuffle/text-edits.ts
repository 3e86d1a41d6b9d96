/** A replacement of `[start, end)` of a text (UTF-16 offsets) by `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * The text with the edits applied, everything else byte for byte (line endings, encoding
 * cookies, a byte-order mark). Edits may come in any order; two that overlap are a bug of
 * the caller and throw.
 *
 * @example applyTextEdits("import a.b", [{ start: 7, end: 8, text: "d_x" }]) // "import d_x.b"
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const parts: string[] = [];
  let cursor = 0;
  for (const edit of sorted) {
    if (edit.start < cursor) throw new Error(`applyTextEdits: overlapping edits at offset ${edit.start}`);
    if (edit.end < edit.start || edit.end > text.length)
      throw new RangeError(`applyTextEdits: edit [${edit.start}, ${edit.end}) outside the text`);
    parts.push(text.slice(cursor, edit.start), edit.text);
    cursor = edit.end;
  }
  parts.push(text.slice(cursor));
  return parts.join("");
}
