/** A run of file-name characters: letters, digits, `_`, `.`, `+`, `-`. */
const NAME_TOKEN = /[A-Za-z0-9_][A-Za-z0-9_.+-]*/g;

/**
 * How many times a text names one of the given file names, as a whole token: delimited by
 * anything that cannot be part of a file name (space, `/`, `\`, quotes, brackets, `:`), a
 * trailing `.` or `-` not included (`see base.css.` names `base.css`). Case-sensitive.
 * Used by repository shuffling to count the references to renamed files it leaves in
 * documentation and configuration (`docs/index.rst` naming `base.css`).
 *
 * Pure. Cost: O(text length).
 *
 * @example countFileNameMentions("see admin/css/base.css and base.css.", new Set(["base.css"])) // 2
 */
export function countFileNameMentions(text: string, names: ReadonlySet<string>): number {
  if (names.size === 0) return 0;
  let count = 0;
  for (const match of text.matchAll(NAME_TOKEN)) {
    let token = match[0];
    if (names.has(token)) {
      count += 1;
      continue;
    }
    token = token.replace(/[.-]+$/, "");
    if (token !== match[0] && names.has(token)) count += 1;
  }
  return count;
}
