import type { TextSpan } from "./mention-candidate.js";

/** A URL in the text, with its host (`github.com`), which is never masked. */
export interface UrlSpan extends TextSpan {
  host: TextSpan;
}

const isLetter = (ch: string) => (ch >= "A" && ch <= "Z") || (ch >= "a" && ch <= "z");
const isSchemeChar = (ch: string) => isLetter(ch) || (ch >= "0" && ch <= "9") || ch === "+" || ch === "." || ch === "-";
const endsUrl = (ch: string) => ch === "<" || ch === ">" || ch === '"' || ch === "'" || ch === "`" || /\s/.test(ch);

/**
 * The URLs of a text (`scheme://host/path?query#fragment`, up to whitespace, a quote, a
 * backtick or an angle bracket). A repository file named inside a URL has only its path part
 * masked (`https://github.com/django/django/blob/main/<path-1>#L12`): the host and the
 * repository, branch and line anchors stay.
 */
export function urlSpans(text: string): UrlSpan[] {
  // What /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>"'`]+/g matches, found from each "://" outward
  // instead: that pattern retries the scheme at every offset of a long run of letters, which
  // is quadratic (512 KB of one letter took minutes); this reads every character a bounded
  // number of times.
  const spans: UrlSpan[] = [];
  let from = 0;
  for (let at = text.indexOf("://", from); at !== -1; at = text.indexOf("://", from)) {
    let runStart = at;
    while (runStart > from && isSchemeChar(text[runStart - 1] as string)) runStart -= 1;
    let start = runStart;
    while (start < at && !isLetter(text[start] as string)) start += 1;
    let end = at + 3;
    while (end < text.length && !endsUrl(text[end] as string)) end += 1;
    if (start === at || end === at + 3) {
      from = at + 1;
      continue;
    }
    const hostStart = at + 3;
    let hostEnd = hostStart;
    while (hostEnd < end && text[hostEnd] !== "/" && text[hostEnd] !== "?" && text[hostEnd] !== "#") hostEnd += 1;
    spans.push({ start, end, host: { start: hostStart, end: hostEnd } });
    from = end;
  }
  return spans;
}

/** The URL that contains offset `at`, if any. */
export function urlAt(urls: readonly UrlSpan[], at: number): UrlSpan | undefined {
  return urls.find((url) => url.start <= at && at < url.end);
}
