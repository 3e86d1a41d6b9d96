import { comparePaths } from "./file-listing.js";

/** Which rule picked a file (docs/definitions.md §1): exact, then case-insensitive, then unique suffix, then closest basename. */
export type PathMatchRule = "exact" | "case-insensitive" | "suffix" | "basename";

/**
 * The outcome of matching a requested path against the repository's files:
 * - `found`: one file, and the rule that chose it (`alternatives`: the next-closest files
 *   when the rule was `basename`, so the model can correct a wrong guess);
 * - `ambiguous`: a rule matched several files equally well; none is chosen;
 * - `not-found`: no rule matched; `candidates` are the closest basenames, if any is close.
 */
export type PathMatch =
  | { status: "found"; path: string; rule: PathMatchRule; alternatives: string[] }
  | { status: "ambiguous"; rule: Exclude<PathMatchRule, "exact">; candidates: string[]; total: number }
  | { status: "not-found"; candidates: string[] };

/** Most candidates listed when a match is ambiguous or missing. */
export const MAX_CANDIDATES = 20;
const ALTERNATIVES = 5;

/**
 * Matches a repository-relative path (already checked by `checkPathInput`) against `files`
 * (sorted), by the first rule that matches anything:
 * 1. exact: the path itself;
 * 2. case-insensitive: the path with case ignored (`readme.MD` → `README.md`); several → ambiguous;
 * 3. suffix: files whose path ends with `/` + the path, on a segment boundary (`db/models/query.py`
 *    → `django/db/models/query.py`; `query.py` alone matches every `…/query.py`): case-sensitive
 *    matches first, then case-insensitive ones; exactly one → chosen, several → ambiguous;
 * 4. basename: the file names closest to the requested one by Levenshtein distance (case
 *    ignored), at most ⌊n/4⌋ + 1 edits for a name of n characters; ties on distance are broken
 *    by how many trailing folders of the request agree with the file's (`db/models/querys.py`
 *    prefers `django/db/models/query.py` to `django/db/models/sql/query.py`); a tie on both →
 *    ambiguous. The chosen file comes with up to 5 `alternatives`: the next files in that
 *    order, at most one edit further.
 * Candidates are listed in path order, at most `MAX_CANDIDATES`; `total` counts them all.
 *
 * @example matchPath(["django/db/models/query.py"], "models/query.py") // { status: "found", path: "django/db/models/query.py", rule: "suffix", alternatives: [] }
 */
export function matchPath(files: readonly string[], requested: string): PathMatch {
  if (files.includes(requested)) return { status: "found", path: requested, rule: "exact", alternatives: [] };
  const lower = requested.toLowerCase();
  const caseless = files.filter((file) => file.toLowerCase() === lower);
  const single = decide(caseless, "case-insensitive");
  if (single) return single;

  const suffix = `/${requested}`;
  const suffixes = files.filter((file) => file.endsWith(suffix));
  const bySuffix = decide(suffixes, "suffix");
  if (bySuffix) return bySuffix;
  const lowerSuffix = `/${lower}`;
  const caselessSuffixes = files.filter((file) => file.toLowerCase().endsWith(lowerSuffix));
  const byCaselessSuffix = decide(caselessSuffixes, "suffix");
  if (byCaselessSuffix) return byCaselessSuffix;

  return closestBasename(files, requested);
}

function decide(matches: string[], rule: "case-insensitive" | "suffix"): PathMatch | undefined {
  if (matches.length === 0) return undefined;
  if (matches.length === 1) return { status: "found", path: matches[0] as string, rule, alternatives: [] };
  const sorted = [...matches].sort(comparePaths);
  return { status: "ambiguous", rule, candidates: sorted.slice(0, MAX_CANDIDATES), total: sorted.length };
}

function closestBasename(files: readonly string[], requested: string): PathMatch {
  const segments = requested.toLowerCase().split("/");
  const name = segments[segments.length - 1] as string;
  const folders = segments.slice(0, -1);
  const limit = Math.floor(name.length / 4) + 1;
  const distances = new Map<string, number>();
  const scored: { file: string; distance: number; folders: number }[] = [];
  for (const file of files) {
    const fileSegments = file.toLowerCase().split("/");
    const fileName = fileSegments[fileSegments.length - 1] as string;
    let distance = distances.get(fileName);
    if (distance === undefined) {
      distance = boundedLevenshtein(name, fileName, limit);
      distances.set(fileName, distance);
    }
    if (distance > limit) continue;
    let agree = 0;
    while (
      agree < folders.length &&
      agree < fileSegments.length - 1 &&
      folders[folders.length - 1 - agree] === fileSegments[fileSegments.length - 2 - agree]
    )
      agree += 1;
    scored.push({ file, distance, folders: agree });
  }
  if (scored.length === 0) return { status: "not-found", candidates: [] };
  scored.sort((a, b) => a.distance - b.distance || b.folders - a.folders || comparePaths(a.file, b.file));
  const best = scored[0] as (typeof scored)[number];
  const tied = scored.filter((entry) => entry.distance === best.distance && entry.folders === best.folders);
  if (tied.length > 1) {
    const candidates = tied.map((entry) => entry.file).sort(comparePaths);
    return {
      status: "ambiguous",
      rule: "basename",
      candidates: candidates.slice(0, MAX_CANDIDATES),
      total: candidates.length,
    };
  }
  const alternatives = scored.slice(1).filter((entry) => entry.distance <= best.distance + 1);
  return {
    status: "found",
    path: best.file,
    rule: "basename",
    alternatives: alternatives.slice(0, ALTERNATIVES).map((entry) => entry.file),
  };
}

/**
 * Levenshtein distance (insertions, deletions, substitutions, each 1) between `a` and `b`,
 * or `limit + 1` as soon as it is sure to exceed `limit`. O(|a|·|b|) time, O(|b|) space.
 *
 * @example boundedLevenshtein("query.py", "querys.py", 3) // 1
 */
export function boundedLevenshtein(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return Math.min(previous[b.length] as number, limit + 1);
}
