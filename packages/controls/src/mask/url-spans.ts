import type { TextSpan } from "./mention-candidate.js";

/** A URL in the text, with its host (`github.com`), which is never masked. */
export interface UrlSpan extends TextSpan {
  host: TextSpan;
}

const URL = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>"'`]+/g;

/**
 * The URLs of a text (`scheme://host/path?query#fragment`, up to whitespace, a quote, a
 * backtick or an angle bracket). A repository file named inside a URL has only its path part
 * masked (`https://github.com/django/django/blob/main/<path-1>#L12`): the host and the
 * repository, branch and line anchors stay.
 */
export function urlSpans(text: string): UrlSpan[] {
  const spans: UrlSpan[] = [];
  for (const match of text.matchAll(URL)) {
    const start = match.index as number;
    const end = start + match[0].length;
    const hostStart = start + match[0].indexOf("://") + 3;
    const rest = /[/?#]/.exec(text.slice(hostStart, end));
    spans.push({ start, end, host: { start: hostStart, end: rest ? hostStart + rest.index : end } });
  }
  return spans;
}

/** The URL that contains offset `at`, if any. */
export function urlAt(urls: readonly UrlSpan[], at: number): UrlSpan | undefined {
  return urls.find((url) => url.start <= at && at < url.end);
}
