import { directoryMentions } from "../mask/directory-mentions.js";
import { KnownFileIndex } from "../known-files/known-file-index.js";
import { longestFirst } from "../mask/longest-first.js";
import { moduleMentions } from "../mask/module-mentions.js";
import { pathMentions } from "../mask/path-mentions.js";
import type { ShuffleMapping } from "./shuffle-mapping.js";
import { shuffleLookup, type ShuffleDirection, type ShuffleLookup } from "./shuffle-paths.js";
import { urlSpans } from "../mask/url-spans.js";
import { type ProjectNameReport, projectNames, renameProjectNames, type ShuffleTextPolicy } from "./project-names.js";

/**
 * What a rewritten mention was: a file path (`django/db/models/query.py`, an absolute or
 * traceback path ending in one), a dotted module path (`django.db.models.query`), a bare
 * file name (`query.py`), or a folder path (`django/db/models/`).
 */
export type IssueMentionKind = "path" | "module" | "filename" | "directory";

export const ISSUE_MENTION_KINDS: readonly IssueMentionKind[] = ["path", "module", "filename", "directory"];

/** One rewritten mention. Offsets in the input text, `end` exclusive. */
export interface IssueTextRewrite {
  kind: IssueMentionKind;
  original: string;
  replacement: string;
  /** The file or folder it names, in the input's names. */
  target: string;
  start: number;
  end: number;
}

/**
 * A mention left as written: `ambiguous` when it fits several files whose new names differ
 * (a bare `utils.py` of several folders is not even a mention; `utils/base.py` fitting two
 * checkouts' files is), `unaligned` when its text does not line up with the file's segments.
 */
export interface IssueTextLeft {
  kind: IssueMentionKind;
  original: string;
  reason: "ambiguous" | "unaligned";
  candidates: string[];
  start: number;
  end: number;
}

export interface IssueTextReport {
  direction: ShuffleDirection;
  /** Sorted by `start`; no two overlap. */
  replacements: IssueTextRewrite[];
  left: IssueTextLeft[];
  /** Replacements per kind. */
  counts: Record<IssueMentionKind, number>;
}

export interface MappedIssueText {
  text: string;
  report: IssueTextReport;
  /** Under the `names` policy: the project's names renamed, and what was left inside identifiers. */
  names?: ProjectNameReport;
}

export interface MapIssueTextOptions {
  /** Default `layout-only` (this function's behaviour before policies); runs default to `names`. */
  policy?: ShuffleTextPolicy;
  /** `owner/name`: with the `names` policy, the owner and the repository's name are renamed too. */
  repo?: string;
}

interface Candidate {
  kind: IssueMentionKind;
  start: number;
  end: number;
  /** The target first, then the others that fit equally well. */
  targets: string[];
}

const KIND_RANK: Record<IssueMentionKind, number> = { path: 0, module: 1, directory: 2, filename: 3 };
const SOURCE_SUFFIX = /\.(?:py|pyi|pyx)$/;

interface TextIndex {
  lookup: ShuffleLookup;
  files: KnownFileIndex;
  directories: ReadonlySet<string>;
  maxDepth: number;
}

const indexes = new WeakMap<ShuffleMapping, Partial<Record<ShuffleDirection, TextIndex>>>();

/**
 * Issue text in the shuffled tree's names (repository shuffling, docs/definitions.md §4): every
 * mention of a repository file or folder is rewritten to its shuffled name, the same file
 * always the same way, and the rewrite is reported. Mentions are found as in path masking
 * (`maskIssuePaths` at level `modules`: relative, absolute, Windows and traceback paths, the
 * path part of URLs, unique bare file names, dotted module paths that resolve to a Python
 * file or package) plus folder paths (`directoryMentions`).
 *
 * Only the segments that name repository entries change: `File "/usr/lib/python3/site-packages/django/db/models/query.py", line 12`
 * keeps its `/usr/lib/python3/site-packages/` and becomes `…/d_k3x9q2/d_0hq7re/d_p1m4xa/m_p8w1z0.py`;
 * `django.db.models.query.QuerySet` becomes `d_k3x9q2.d_0hq7re.d_p1m4xa.m_p8w1z0.QuerySet`
 * (the attribute is code, not a file). Everything else is kept byte for byte.
 *
 * Left as written (and listed in `report.left` when found): a mention that fits several
 * files with different new names; a bare name shared by several files (not a mention at
 * all); a lone top-level package name (`django` as a word: a module path needs two parts);
 * symbols. So the text can still name the project: the control hides its layout. That is the
 * `layout-only` policy; the `names` policy (`options.policy`, the default of runs) then renames
 * the project's names wherever they stand as a word (`renameProjectNames`): the owner and name
 * of `options.repo` and the top-level packages, in prose, paths, egg names, commands and URLs.
 * `report`'s offsets are in `text`; those of `names` in the text after the layout rewrite.
 *
 * Pure. Under `layout-only`, `unmapIssueText(m, mapIssueText(m, t).text).text === t` when every mention was
 * rewritten (rewritten mentions are unique shuffled names, found again on the way back).
 *
 * @example mapIssueText(mapping, "see django/db/models/query.py").text // "see d_k3x9q2/d_0hq7re/d_p1m4xa/m_p8w1z0.py"
 */
export function mapIssueText(
  mapping: ShuffleMapping,
  text: string,
  options: MapIssueTextOptions = {},
): MappedIssueText {
  const layout = rewriteMentions(textIndex(mapping, "map"), text, "map");
  if ((options.policy ?? "layout-only") === "layout-only") return layout;
  // Names after the layout: paths are already in shuffled names, and what is left of the
  // project (a lone package name, an egg folder, the repository in a URL, prose) goes now.
  const renamed = renameProjectNames(layout.text, projectNames(options.repo ?? "", mapping));
  return { text: renamed.text, report: layout.report, names: renamed.report };
}

/**
 * Text in shuffled names (a model's finding, a trajectory) back in the original
 * repository's names: `mapIssueText` in the other direction.
 */
export function unmapIssueText(mapping: ShuffleMapping, text: string): MappedIssueText {
  return rewriteMentions(textIndex(mapping, "unmap"), text, "unmap");
}

function textIndex(mapping: ShuffleMapping, direction: ShuffleDirection): TextIndex {
  let cached = indexes.get(mapping);
  if (!cached) {
    cached = {};
    indexes.set(mapping, cached);
  }
  let index = cached[direction];
  if (!index) {
    const lookup = shuffleLookup(mapping, direction);
    const directories = new Set(lookup.directories.keys());
    let maxDepth = 0;
    for (const directory of directories) maxDepth = Math.max(maxDepth, directory.split("/").length);
    index = { lookup, files: new KnownFileIndex([...lookup.files.keys()]), directories, maxDepth };
    cached[direction] = index;
  }
  return index;
}

function rewriteMentions(index: TextIndex, text: string, direction: ShuffleDirection): MappedIssueText {
  const urls = urlSpans(text);
  const candidates: Candidate[] = [];
  for (const found of [...pathMentions(text, index.files, urls), ...moduleMentions(text, index.files, urls)]) {
    if (found.kind === "symbol") continue;
    candidates.push({
      kind: found.kind,
      start: found.start,
      end: found.end,
      targets: [found.file, ...found.alternatives],
    });
  }
  for (const found of directoryMentions(text, index.directories, urls, index.maxDepth)) {
    candidates.push({ kind: "directory", start: found.start, end: found.end, targets: [found.directory] });
  }
  const chosen = longestFirst(candidates, text.length, (candidate) => KIND_RANK[candidate.kind]);

  const replacements: IssueTextRewrite[] = [];
  const left: IssueTextLeft[] = [];
  const counts = Object.fromEntries(ISSUE_MENTION_KINDS.map((kind) => [kind, 0])) as Record<IssueMentionKind, number>;
  const parts: string[] = [];
  let cursor = 0;
  for (const candidate of chosen) {
    const original = text.slice(candidate.start, candidate.end);
    const rewrites = candidate.targets.map((target) => rewriteSpan(candidate.kind, original, target, index.lookup));
    const [first] = rewrites;
    const base = { kind: candidate.kind, original, start: candidate.start, end: candidate.end };
    if (first === undefined || rewrites.some((rewrite) => rewrite === undefined)) {
      left.push({ ...base, reason: "unaligned", candidates: candidate.targets });
      continue;
    }
    if (rewrites.some((rewrite) => rewrite !== first)) {
      left.push({ ...base, reason: "ambiguous", candidates: candidate.targets });
      continue;
    }
    if (first === original) continue;
    replacements.push({ ...base, replacement: first, target: candidate.targets[0] as string });
    counts[candidate.kind] += 1;
    parts.push(text.slice(cursor, candidate.start), first);
    cursor = candidate.end;
  }
  parts.push(text.slice(cursor));
  return { text: parts.join(""), report: { direction, replacements, left, counts } };
}

/**
 * The span's text with the segments (or module components) that name `target` replaced by
 * their new names; `undefined` when the span does not end with the target's trailing names.
 */
function rewriteSpan(
  kind: IssueMentionKind,
  original: string,
  target: string,
  lookup: ShuffleLookup,
): string | undefined {
  if (kind === "module") {
    const renamed = lookup.files.get(target);
    if (renamed === undefined) return undefined;
    const from = moduleComponents(target);
    const to = moduleComponents(renamed);
    if (from.length !== to.length) return undefined;
    // The whole mention is the module path, or the module path plus a source suffix (`x.y.py`).
    for (const body of [original, original.replace(SOURCE_SUFFIX, "")]) {
      const k = body.split(".").length;
      if (k > from.length || from.slice(from.length - k).join(".") !== body) continue;
      return to.slice(to.length - k).join(".") + original.slice(body.length);
    }
    return undefined;
  }
  const renamed = kind === "directory" ? lookup.directories.get(target) : lookup.files.get(target);
  if (renamed === undefined) return undefined;
  const from = target.split("/");
  const to = renamed.split("/");
  const segments = [...original.matchAll(/[^\\/]+/g)].filter((segment) => segment[0] !== ".");
  let k = 0;
  while (k < segments.length && k < from.length && segments[segments.length - 1 - k]?.[0] === from[from.length - 1 - k])
    k += 1;
  if (k === 0) return undefined;
  let result = original;
  for (let i = 0; i < k; i += 1) {
    const segment = segments[segments.length - 1 - i] as RegExpMatchArray;
    const at = segment.index as number;
    result = result.slice(0, at) + (to[to.length - 1 - i] as string) + result.slice(at + segment[0].length);
  }
  return result;
}

/** The dotted module components of a Python file path (`a/b/__init__.py` → `a`, `b`). */
function moduleComponents(file: string): string[] {
  const components = file.replace(SOURCE_SUFFIX, "").split("/");
  if (components.at(-1) === "__init__") components.pop();
  return components;
}
