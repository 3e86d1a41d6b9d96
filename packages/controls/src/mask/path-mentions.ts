import type { KnownFileIndex } from "../known-files/known-file-index.js";
import type { MentionCandidate } from "./mention-candidate.js";
import { type UrlSpan, urlAt } from "./url-spans.js";

/** Characters of one path segment: letters, digits and `_ . - + ~ @ %`. */
const SEGMENT = String.raw`[\p{L}\p{N}_.\-+~@%]`;
/**
 * A path-like token: an optional drive (`C:`), segments joined by runs of `/` or `\` (a
 * JSON-escaped `\\` too). A colon, quote, comma, bracket, `#` or space ends it, so
 * `query.py:12`, `query.py", line 12` and `query.py#L12` keep their line references.
 */
export const PATH_TOKEN = new RegExp(
  String.raw`(?:[A-Za-z]:(?=[\\/]))?[\\/]*${SEGMENT}+(?:[\\/]+${SEGMENT}+)*[\\/]*`,
  "gu",
);
/** A traceback frame's file, which may hold spaces (`File "C:\Program Files\…\x.py", line 3`). */
const TRACEBACK_FILE = /File "([^"\r\n]+)"/g;
/** A last segment that looks like a file name with an extension (`query.py`, `setup.cfg`). */
const FILE_NAME = /^[^.].*\.[\p{L}\p{N}_-]+$|^\.[\p{L}\p{N}_-]+$/u;

interface Segment {
  text: string;
  start: number;
  end: number;
}

/**
 * Path and file-name mentions of known repository files (level `paths`, docs/definitions.md §4):
 * - a token with folders whose trailing segments name a known file (see
 *   `KnownFileIndex.resolvePath`) is a `path` mention and is replaced whole — leading
 *   folders, drive, `./` and `a/` included — so that `File "/usr/…/query.py", line 12` becomes
 *   `File "<path-1>", line 12`; inside a URL only the segments that name the file are replaced;
 * - a single segment that is a known top-level file (`setup.py`) is a `path` mention;
 * - a single segment equal to the basename of exactly one known file is a `filename` mention
 *   when it looks like a file name (`query.py`), or when it stands alone in backticks
 *   (`` `Makefile` ``). A basename shared by several known files names none of them and stays;
 *   so does a basename at the end of a path to another folder (`transformers/trainer.py` is
 *   not `sentence_transformers/trainer.py`).
 * Trailing dots (end of a sentence) are not part of a path; a diff's `a/` / `b/` prefix is not
 * a folder (`diff --git a/axis.py b/axis.py` names `lib/matplotlib/axis.py`: its `axis.py` is
 * masked as a file name); a token that runs on past a file name (`client/orchestration.py/update`)
 * is matched up to that name.
 */
export function pathMentions(text: string, index: KnownFileIndex, urls: readonly UrlSpan[]): MentionCandidate[] {
  const candidates: MentionCandidate[] = [];
  for (const match of text.matchAll(PATH_TOKEN)) {
    const token = match[0].replace(/[.\\/]+$/, "");
    if (token === "") continue;
    const candidate = tokenMention(text, match.index as number, token, index, urls);
    if (candidate) candidates.push(candidate);
  }
  for (const match of text.matchAll(TRACEBACK_FILE)) {
    const path = match[1] as string;
    const start = (match.index as number) + match[0].indexOf('"') + 1;
    const segments = segmentsOf(path, start);
    if (segments.length < 2) continue;
    const resolved = index.resolvePath(
      segments.map((segment) => segment.text),
      { useRoots: true },
    );
    if (resolved) candidates.push({ kind: "path", start, end: start + path.length, ...withoutMatched(resolved) });
  }
  return candidates;
}

function tokenMention(
  text: string,
  start: number,
  token: string,
  index: KnownFileIndex,
  urls: readonly UrlSpan[],
): MentionCandidate | undefined {
  const all = segmentsOf(token, start);
  const url = urlAt(urls, start);
  // A diff's `a/` and `b/` are notation, not folders (`diff --git a/axis.py b/axis.py`).
  const first = all[0];
  const segments = !url && all.length > 1 && first?.start === start && /^[ab]$/.test(first.text) ? all.slice(1) : all;
  // The whole token, else a prefix that ends at a known file name (`client/orchestration.py/update_deployment`).
  for (let cut = segments.length; cut >= 1; cut -= 1) {
    if (cut < segments.length && !index.hasBasename((segments[cut - 1] as Segment).text)) continue;
    const mention = segmentsMention(text, start, segments.slice(0, cut), index, url);
    if (mention) return mention;
  }
  return undefined;
}

function segmentsMention(
  text: string,
  start: number,
  segments: readonly Segment[],
  index: KnownFileIndex,
  url: UrlSpan | undefined,
): MentionCandidate | undefined {
  const last = segments.at(-1);
  if (!last) return undefined;
  if (segments.length === 1) {
    if (index.has(last.text)) {
      return {
        kind: "path",
        start: url ? last.start : start,
        end: last.end,
        file: last.text,
        inferred: false,
        alternatives: [],
      };
    }
    const inBackticks = text[last.start - 1] === "`" && text[last.end] === "`";
    if (!FILE_NAME.test(last.text) && !inBackticks) return undefined;
    const resolved = index.resolveBasename(last.text);
    if (!resolved) return undefined;
    return { kind: "filename", start: last.start, end: last.end, ...withoutMatched(resolved) };
  }
  const resolved = index.resolvePath(
    segments.map((segment) => segment.text),
    { useRoots: !url },
  );
  if (!resolved) return undefined;
  const from = url ? (segments[segments.length - resolved.matched] as Segment).start : start;
  if (url && from < url.host.end) return undefined;
  return { kind: "path", start: from, end: last.end, ...withoutMatched(resolved) };
}

/** The segments of a path token, without `.` and empty ones, with their text offsets. */
function segmentsOf(token: string, offset: number): Segment[] {
  const segments: Segment[] = [];
  for (const match of token.matchAll(/[^\\/]+/g)) {
    if (match[0] === ".") continue;
    const start = offset + (match.index as number);
    segments.push({ text: match[0], start, end: start + match[0].length });
  }
  return segments;
}

function withoutMatched<T extends { matched: number }>(resolved: T): Omit<T, "matched"> {
  const { matched: _matched, ...rest } = resolved;
  return rest;
}
