import { KnownFileIndex } from "../known-files/known-file-index.js";
import { longestFirst } from "./longest-first.js";
import type {
  MaskedIssue,
  MaskIssuePathsOptions,
  MaskLevel,
  MaskReplacement,
  MaskReport,
  MentionKind,
} from "./mask-types.js";
import { DEFAULT_MASK_LEVEL, MASK_LEVELS, MENTION_KINDS } from "./mask-types.js";
import type { MentionCandidate } from "./mention-candidate.js";
import { moduleMentions } from "./module-mentions.js";
import { PATH_TOKEN, pathMentions } from "./path-mentions.js";
import { symbolMentions } from "./symbol-mentions.js";
import { urlSpans } from "./url-spans.js";

/** When two candidates of equal length cover the same text, the more specific kind wins. */
const KIND_RANK: Record<MentionKind, number> = { path: 0, module: 1, filename: 2, symbol: 3 };

/**
 * Path masking, docs/definitions.md §4: rewrites an issue text so that it names no known repository
 * file, replacing each mention with a stable placeholder and reporting what it replaced.
 *
 * What counts as a mention, by level (each includes the one before):
 * - `paths`: relative paths (`django/db/models/query.py`, `./…`, `a/…`, Windows `\`),
 *   absolute paths whose trailing segments name a known file (`/usr/lib/python3/site-packages/django/db/models/query.py`,
 *   inside a traceback `File "…", line 12` too), replaced as a whole token; the path part of a
 *   URL (`https://github.com/django/django/blob/main/<path-1>#L12`: it names the file, so it is
 *   masked, while host, repository, branch and anchor stay); file names of exactly one known
 *   file, bare when they have an extension (`query.py`), or any in backticks (`` `Makefile` ``).
 *   See `pathMentions` and `KnownFileIndex.resolvePath` for the matching rules.
 * - `modules`: dotted module paths resolving to a known Python file (`django.db.models.query`,
 *   the package `django.db.models` → `django/db/models/__init__.py`); a trailing attribute is
 *   kept (`<path-1>.QuerySet`). See `moduleMentions`.
 * - `symbols`: the given gold symbol names as whole words (`<symbol-1>`). See `symbolMentions`.
 *
 * Placeholders: every mention of one file gets the same `<path-N>`, whatever its form (a path,
 * a dotted module and a file name of `django/db/models/query.py` are all `<path-1>`); symbols
 * get `<symbol-N>` per name. Both are numbered in order of first appearance. Where candidates
 * overlap, the longest wins (ties: the earlier, then path > module > filename > symbol).
 * Everything outside the replaced spans is kept byte for byte.
 *
 * Not masked: URL hosts, version strings, `e.g.`, plain words, folders (`django/db/models/`),
 * a basename shared by several known files, and other projects' files (a path that shares
 * only its basename with a known file). Without a checkout, only what `knownFiles` says is
 * known (plus its package-root patterns) can be masked: see `knownFilesFromInstance`.
 *
 * Pure: no I/O. Cost: O(text length × candidate length) plus the index over `knownFiles`.
 *
 * @example maskIssuePaths('File "/usr/lib/python3/site-packages/django/db/models/query.py", line 12', { knownFiles: ["django/db/models/query.py"] }).text
 * // 'File "<path-1>", line 12'
 */
export function maskIssuePaths(text: string, options: MaskIssuePathsOptions): MaskedIssue {
  const level: MaskLevel = options.level ?? DEFAULT_MASK_LEVEL;
  if ((level as string) === "paths")
    throw new RangeError(
      'maskIssuePaths: the level "paths" was renamed: use "modules" (the default: paths and dotted module paths, the control of docs/definitions.md §4) or "paths-only" (file paths and names only)',
    );
  if (!MASK_LEVELS.includes(level))
    throw new RangeError(
      `maskIssuePaths: unknown level ${JSON.stringify(level)} (expected one of ${MASK_LEVELS.join(", ")})`,
    );
  if (level === "symbols" && options.symbols === undefined) {
    throw new TypeError(
      'maskIssuePaths: level "symbols" requires the symbols option (e.g. goldFromPatch(...).symbols)',
    );
  }
  const index = new KnownFileIndex(options.knownFiles);
  const urls = urlSpans(text);
  const candidates = pathMentions(text, index, urls);
  if (level !== "paths-only") candidates.push(...moduleMentions(text, index, urls));
  if (level === "symbols") candidates.push(...symbolMentions(text, options.symbols ?? []));
  const chosen = longestFirst(candidates, text.length, (candidate) => KIND_RANK[candidate.kind]);
  return rewrite(text, level, chosen, leftAlonePaths(text, chosen));
}

/** File-path tokens (a folder, then a file name with an extension) that no chosen mention covers. */
function leftAlonePaths(text: string, chosen: readonly MentionCandidate[]): MaskReport["leftAlone"] {
  const left: MaskReport["leftAlone"] = [];
  for (const match of text.matchAll(PATH_TOKEN)) {
    const token = match[0].replace(/[.\\/]+$/, "");
    const start = match.index as number;
    const end = start + token.length;
    const segments = token.split(/[\\/]+/).filter((segment) => segment !== "" && segment !== ".");
    if (
      segments.length < 2 ||
      !FILE_LIKE.test(segments.at(-1) as string) ||
      /^\d+(\.\d+)*$/.test(segments.at(-1) as string)
    )
      continue;
    if (chosen.some((candidate) => candidate.start < end && start < candidate.end)) continue;
    left.push({ text: token, start, end });
  }
  return left;
}

/** A file name with an extension of letters (`x.py`, `setup.cfg`), not a version or a number. */
const FILE_LIKE = /^[^.\s][^\s]*\.[A-Za-z][A-Za-z0-9_]{0,9}$/;

function rewrite(
  text: string,
  level: MaskLevel,
  chosen: readonly MentionCandidate[],
  leftAlone: MaskReport["leftAlone"],
): MaskedIssue {
  const placeholderOf = new Map<string, string>();
  const placeholders: Record<string, string> = {};
  const counts = Object.fromEntries(MENTION_KINDS.map((kind) => [kind, 0])) as Record<MentionKind, number>;
  let paths = 0;
  let symbols = 0;
  const replacements: MaskReplacement[] = [];
  const parts: string[] = [];
  let cursor = 0;
  for (const candidate of chosen) {
    const key = candidate.kind === "symbol" ? `symbol\0${candidate.symbol}` : `file\0${candidate.file}`;
    let placeholder = placeholderOf.get(key);
    if (placeholder === undefined) {
      placeholder = candidate.kind === "symbol" ? `<symbol-${++symbols}>` : `<path-${++paths}>`;
      placeholderOf.set(key, placeholder);
      placeholders[placeholder] = candidate.file;
    }
    counts[candidate.kind] += 1;
    replacements.push({
      kind: candidate.kind,
      original: text.slice(candidate.start, candidate.end),
      placeholder,
      file: candidate.file,
      start: candidate.start,
      end: candidate.end,
      inferred: candidate.inferred,
      ...(candidate.alternatives.length > 0 ? { alternatives: candidate.alternatives } : {}),
    });
    parts.push(text.slice(cursor, candidate.start), placeholder);
    cursor = candidate.end;
  }
  parts.push(text.slice(cursor));
  return { text: parts.join(""), report: { level, replacements, placeholders, counts, leftAlone } };
}
