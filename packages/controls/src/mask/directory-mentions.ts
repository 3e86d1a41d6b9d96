import type { TextSpan } from "./mention-candidate.js";
import { PATH_TOKEN } from "./path-mentions.js";
import { urlAt, type UrlSpan } from "./url-spans.js";

/** A folder of the repository named in a text. Offsets in the text, `end` exclusive. */
export interface DirectoryMention extends TextSpan {
  /** The repository-relative directory. */
  directory: string;
}

/**
 * Mentions of repository folders in a text, for repository shuffling's issue-text mapping
 * (docs/definitions.md §4; path masking leaves folders alone). A path token (as in `pathMentions`)
 * names a folder when its trailing segments are a whole repository-relative directory:
 * - the whole token is the folder (`django/db/models/`, `./django/`, `django\db`), or
 * - at least its last two segments are (`/usr/lib/python3/dist-packages/django/db/`), so
 *   that a single folder name inside another path (`github.com/django`) does not count.
 * A token without any `/` or `\` is a word, never a folder (`django` alone stays). Inside a
 * URL the host is never part of a mention. The mention covers the matched segments only.
 */
export function directoryMentions(
  text: string,
  directories: ReadonlySet<string>,
  urls: readonly UrlSpan[],
  maxDepth: number,
): DirectoryMention[] {
  const mentions: DirectoryMention[] = [];
  for (const match of text.matchAll(PATH_TOKEN)) {
    if (!/[\\/]/.test(match[0])) continue;
    // A trailing full stop ends a sentence, not a folder name (`see django/db.`).
    const token = match[0].replace(/[.\\/]+$/, "");
    const start = match.index as number;
    const segments: { text: string; start: number; end: number }[] = [];
    for (const segment of token.matchAll(/[^\\/]+/g)) {
      if (segment[0] === ".") continue;
      const at = start + (segment.index as number);
      segments.push({ text: segment[0], start: at, end: at + segment[0].length });
    }
    const n = segments.length;
    for (let k = Math.min(n, maxDepth); k >= 1; k -= 1) {
      if (k < n && k < 2) break;
      const directory = segments
        .slice(n - k)
        .map((segment) => segment.text)
        .join("/");
      if (!directories.has(directory)) continue;
      const from = (segments[n - k] as { start: number }).start;
      const url = urlAt(urls, start);
      if (url && from < url.host.end) break;
      mentions.push({ directory, start: from, end: (segments[n - 1] as { end: number }).end });
      break;
    }
  }
  return mentions;
}
