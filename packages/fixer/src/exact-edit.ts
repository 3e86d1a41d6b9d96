/** edit_file's outcome: the new content, or why the edit cannot be made (the tool's answer). */
export type ExactEdit =
  | { ok: true; content: string /** 1-based line where the replaced text began. */; line: number }
  | {
      ok: false;
      reason: "empty" | "absent" | "ambiguous" | "unchanged";
      message: string /** Where each occurrence begins (ambiguous). */;
      lines?: number[];
    };

/**
 * edit_file's replacement: `oldText` must occur exactly once, as written (no whitespace
 * folding, no fuzzy match: a model that quotes the file wrongly is told so, and nothing
 * changes). Absent, ambiguous (with the lines of each occurrence) and no-op edits are refused
 * with a message that says how to fix the call.
 */
export function replaceExact(content: string, oldText: string, newText: string): ExactEdit {
  if (oldText === "")
    return {
      ok: false,
      reason: "empty",
      message: "old_text is empty: give the exact text to replace (write_file writes a whole file)",
    };
  if (oldText === newText)
    return {
      ok: false,
      reason: "unchanged",
      message: "old_text and new_text are the same: the edit would change nothing",
    };
  const starts: number[] = [];
  for (let at = content.indexOf(oldText); at !== -1; at = content.indexOf(oldText, at + 1)) starts.push(at);
  if (starts.length === 0)
    return {
      ok: false,
      reason: "absent",
      message:
        "old_text does not occur in the file: it must match the file exactly, whitespace and indentation included (read the lines again with read_file)",
    };
  const lineOf = (offset: number) => content.slice(0, offset).split("\n").length;
  if (starts.length > 1) {
    const lines = starts.map(lineOf);
    return {
      ok: false,
      reason: "ambiguous",
      lines,
      message: `old_text occurs ${starts.length} times (at lines ${lines.join(", ")}): include enough surrounding lines to make it unique`,
    };
  }
  const at = starts[0]!;
  return { ok: true, content: content.slice(0, at) + newText + content.slice(at + oldText.length), line: lineOf(at) };
}
