/**
 * The characters Python's `str.splitlines()` ends a line at, besides `\n` and `\r`: vertical
 * tab, form feed, the file, group and record separators, NEL, and the line and paragraph
 * separators. A patch held in a JSON string can carry any of them inside a line of code.
 */
const PYTHON_LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/**
 * Python's `str.splitlines()` (no `keepends`): the text cut at every line boundary Python
 * knows, `\r\n` counting as one; a final boundary leaves no empty last line, and `""` gives
 * `[]`. Needed wherever loclab replays Python code that reads a patch with `splitlines()`,
 * since `split("\n")` disagrees on any line holding one of the other boundaries.
 *
 * @example pythonSplitLines("a\r\nb\x0cc\n") // ["a", "b", "c"]
 */
export function pythonSplitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(new RegExp(PYTHON_LINE_BREAK.source, "g"));
  // A boundary at the very end ends the last line; it does not start an empty one.
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}
