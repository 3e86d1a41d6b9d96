// Python's str methods as the harness uses them. The parsers are ports of Python code whose
// edge cases decide test names (a name is cut at the first whitespace Python sees), so the
// whitespace set is Python's `str.isspace()` set, not JavaScript's `\s` (which lacks
// \x1c–\x1f and \x85 and adds \ufeff).

/** The characters `str.split()` / `str.strip()` treat as whitespace. */
export const PY_WHITESPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const RUN = new RegExp(`[${PY_WHITESPACE}]+`, "g");
const LEADING = new RegExp(`^[${PY_WHITESPACE}]+`);
const TRAILING = new RegExp(`[${PY_WHITESPACE}]+$`);

/** `s.split()`: split on runs of whitespace, no empty fields. */
export function pySplit(text: string): string[] {
  return text.split(RUN).filter((part) => part !== "");
}

/** `s.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(LEADING, "").replace(TRAILING, "");
}

/** `s.lstrip()`. */
export function pyLstrip(text: string): string {
  return text.replace(LEADING, "");
}

/** The text Python reads from a log file opened in text mode (universal newlines). */
export function universalNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
