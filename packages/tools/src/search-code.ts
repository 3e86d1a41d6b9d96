import type { FileEntry } from "./file-listing.js";
import { type PathFilter, globFilter, selectionOf } from "./glob-filter.js";
import { streamLineChunks } from "./large-file.js";
import { clip } from "./repo-path.js";
import { lineAtOffset, lineByteRange, lineStartOffsets } from "./text-lines.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

export interface SearchCodeInput {
  /** The literal text to find (not a regular expression), on one line. */
  query: string;
  /** Ignore case (default false: case-sensitive). */
  ignoreCase?: boolean;
  /** Only files this glob selects (see `globFilter`). */
  glob?: string;
  /** Most hits returned (default `limits.searchDefaultHits`). */
  maxHits?: number;
}

/** One matching line: repository-relative path, 1-based line, the line's text. */
export interface SearchHit {
  path: string;
  line: number;
  /** The line without its line break; clipped around the match to `limits.hitTextMaxChars`, then `clipped` is set. */
  text: string;
  clipped?: true;
}

export interface SearchCodeResult {
  query: string;
  ignoreCase: boolean;
  glob: string | null;
  /** Ordered by path, then line. */
  hits: SearchHit[];
  /** Matching lines in all (a line with several matches counts once). */
  totalHits: number;
  /** Matching lines not returned (`totalHits - hits.length`). */
  truncated: number;
  filesSearched: number;
  filesWithHits: number;
  /** Files not searched: binary (a NUL byte), unreadable, and symbolic links (their targets are searched under their own paths). */
  skipped: { binary: number; unreadable: number; symlinks: number };
}

/**
 * search_code (docs/definitions.md §1): literal search over the workspace's text files, like
 * `rg -F -n` (with `--no-ignore`: the workspace's file list decides what is searched).
 * - Literal bytes: the query's UTF-8 bytes are looked for in the file's bytes; no regular
 *   expression, no escaping. With `ignoreCase`, both sides are lower-cased
 *   (`String.prototype.toLowerCase`, full Unicode).
 * - A hit is a line that holds the query; a line is reported once however many times it
 *   holds it. Lines end at `\n`; the text drops a `\r` before it.
 * - Searched: regular files without a NUL byte (a binary file is skipped whole, where ripgrep
 *   would report the matches before its first NUL). Files over `maxFileBytes` are streamed.
 * - Hits are ordered by path (code-unit order), then line; at most `maxHits` are returned,
 *   and `truncated` says how many were cut.
 * - Refused: an empty query, one over `limits.maxQueryLength` characters, one with a NUL byte
 *   or a line break.
 */
export async function searchCode(workspace: Workspace, input: SearchCodeInput): Promise<SearchCodeResult> {
  const { query } = input;
  if (typeof query !== "string" || query.length === 0)
    throw new ToolError("invalid-input", "query is empty: give the literal text to search for");
  if (query.length > workspace.limits.maxQueryLength) {
    throw new ToolError(
      "refused",
      `query is ${query.length} characters long; the limit is ${workspace.limits.maxQueryLength}`,
    );
  }
  if (query.includes("\0")) throw new ToolError("refused", "query contains a NUL byte");
  if (/[\r\n]/.test(query))
    throw new ToolError(
      "invalid-input",
      "query holds a line break: search_code matches within one line; search for one line at a time",
    );
  const maxHits = input.maxHits ?? workspace.limits.searchDefaultHits;
  if (!Number.isInteger(maxHits) || maxHits < 1)
    throw new ToolError("invalid-input", `maxHits must be a positive integer, got ${String(input.maxHits)}`);
  const ignoreCase = input.ignoreCase ?? false;
  const filter: PathFilter | undefined =
    input.glob === undefined ? undefined : globFilter(input.glob, { maxLength: workspace.limits.maxPathLength });
  const needle = Buffer.from(ignoreCase ? query.toLowerCase() : query, "utf8");

  const hits: SearchHit[] = [];
  let totalHits = 0;
  let filesSearched = 0;
  let filesWithHits = 0;
  const skipped = { binary: 0, unreadable: 0, symlinks: 0 };
  const record = (path: string, line: number, text: () => string) => {
    totalHits += 1;
    if (hits.length < maxHits)
      hits.push(clipHit(path, line, text(), query, ignoreCase, workspace.limits.hitTextMaxChars));
  };

  // With a content pack, the trigram signatures rule out most files without reading them.
  const entries = await workspace.files();
  const selected = filter && input.glob !== undefined ? selectionOf(entries, input.glob, filter) : undefined;
  const packed = workspace.packFilter(needle, ignoreCase);
  for (let position = 0; position < entries.length; position += 1) {
    if (selected && selected[position] !== 1) continue;
    const entry = entries[position] as FileEntry;
    if (packed?.(position) === false) {
      filesSearched += 1;
      continue;
    }
    if (entry.kind === "symlink") {
      skipped.symlinks += 1;
      continue;
    }
    const read = workspace.cached(entry.path) ?? (await workspace.read(entry.path));
    if (read.kind === "binary") {
      skipped.binary += 1;
      continue;
    }
    if (read.kind === "missing") {
      skipped.unreadable += 1;
      continue;
    }
    filesSearched += 1;
    const before = totalHits;
    if (read.kind === "text") {
      const hay = ignoreCase ? workspace.lowerCased(entry.path, read.bytes) : undefined;
      const haystack = hay ? hay.lower : read.bytes;
      let at = haystack.indexOf(needle);
      if (at >= 0) {
        const hayStarts = hay ? hay.lineStarts : workspace.lineStarts(entry.path, read.bytes);
        const textStarts = hay ? workspace.lineStarts(entry.path, read.bytes) : hayStarts;
        while (at >= 0) {
          const line = lineAtOffset(hayStarts, at);
          record(entry.path, line, () => decodeLine(read.bytes, textStarts, line));
          const lineBreak = haystack.indexOf(0x0a, at);
          if (lineBreak < 0) break;
          at = haystack.indexOf(needle, lineBreak + 1);
        }
      }
    } else {
      const outcome = await streamLineChunks(read.absolutePath, (chunk, firstLine) => {
        const haystack = ignoreCase ? Buffer.from(chunk.toString("utf8").toLowerCase(), "utf8") : chunk;
        let at = haystack.indexOf(needle);
        if (at < 0) return;
        const hayStarts = lineStartOffsets(haystack);
        const textStarts = ignoreCase ? lineStartOffsets(chunk) : hayStarts;
        while (at >= 0) {
          const line = lineAtOffset(hayStarts, at);
          record(entry.path, firstLine + line - 1, () => decodeLine(chunk, textStarts, line));
          const lineBreak = haystack.indexOf(0x0a, at);
          if (lineBreak < 0) break;
          at = haystack.indexOf(needle, lineBreak + 1);
        }
      });
      if (outcome === "binary") {
        // Counted as binary, like a small file with a NUL byte: its hits are withdrawn.
        filesSearched -= 1;
        skipped.binary += 1;
        totalHits = before;
        while (hits.length > 0 && (hits[hits.length - 1] as SearchHit).path === entry.path) hits.pop();
        continue;
      }
    }
    if (totalHits > before) filesWithHits += 1;
  }
  return {
    query,
    ignoreCase,
    glob: input.glob ?? null,
    hits,
    totalHits,
    truncated: totalHits - hits.length,
    filesSearched,
    filesWithHits,
    skipped,
  };
}

function decodeLine(bytes: Buffer, starts: Uint32Array, line: number): string {
  const { start, end } = lineByteRange(bytes, starts, line);
  return bytes.toString("utf8", start, end);
}

/** A hit whose line is longer than `max` characters keeps a window of `max` characters around the first match. */
function clipHit(path: string, line: number, text: string, query: string, ignoreCase: boolean, max: number): SearchHit {
  if (text.length <= max) return { path, line, text };
  const at = Math.max(0, (ignoreCase ? text.toLowerCase() : text).indexOf(ignoreCase ? query.toLowerCase() : query));
  const from = Math.max(0, Math.min(at - Math.floor((max - query.length) / 2), text.length - max));
  return { path, line, text: text.slice(from, from + max), clipped: true };
}

/**
 * The text the model reads: a summary line, then `path:line:text` per hit, then what was
 * cut and how to narrow the search.
 */
export function renderSearchCode(result: SearchCodeResult): string {
  const scope = result.glob === null ? "" : ` in files matching ${JSON.stringify(result.glob)}`;
  const mode = result.ignoreCase ? " (ignoring case)" : "";
  if (result.totalHits === 0) {
    return `No matches for ${JSON.stringify(clip(result.query))}${mode}${scope} (${result.filesSearched} files searched)\n`;
  }
  const header =
    `${result.totalHits} matching line${result.totalHits === 1 ? "" : "s"} for ${JSON.stringify(clip(result.query))}${mode}${scope} ` +
    `in ${result.filesWithHits} file${result.filesWithHits === 1 ? "" : "s"}` +
    (result.truncated > 0 ? `; showing the first ${result.hits.length}, ${result.truncated} more not shown` : "");
  const lines = result.hits.map((hit) => `${hit.path}:${hit.line}:${hit.clipped ? `…${hit.text}…` : hit.text}`);
  const footer =
    result.truncated > 0
      ? `[${result.truncated} more hits not shown: narrow the search with a longer query or a glob]\n`
      : "";
  return `${header}\n${lines.join("\n")}\n${footer}`;
}
