import { createHash } from "node:crypto";
import { urlSpans } from "../mask/url-spans.js";
import { topLevelPackageNames } from "./plan-repository-shuffle.js";
import type { ShuffleMapping } from "./shuffle-mapping.js";

/**
 * How much of the issue text a shuffled cell rewrites (docs/definitions.md §4):
 * - `names` (the default for runs): the layout (every mention of a repository file or folder)
 *   and the project's names: the repository's owner and name and its top-level packages,
 *   wherever they stand as a word (prose, paths, egg and dist names, commands, URLs);
 * - `layout-only`: the layout alone, as before; a lone package name and the project's name stay.
 */
export const SHUFFLE_TEXT_POLICIES = ["names", "layout-only"] as const;
export type ShuffleTextPolicy = (typeof SHUFFLE_TEXT_POLICIES)[number];

/** One name of the project and what it becomes. */
export interface ProjectName {
  /** Lower case, leading underscores dropped (`_pytest` → `pytest`): what is matched, case-insensitively. */
  name: string;
  /** Where the name comes from. */
  sources: ("owner" | "repository" | "package")[];
  /**
   * What every occurrence becomes: a package's shuffled folder name (`d_k3x9q2`) or module stem
   * (`m_p8w1z0`), so that text and tree agree; a name that is no package (the owner, a
   * repository named otherwise than its package) a drawn `p_` + 6 characters.
   */
  replacement: string;
}

/** Where a renamed occurrence stood, so that a reader can see what prose was changed. */
export type NameContext = "url" | "path" | "dotted" | "prose";

export interface RenamedName {
  name: string;
  original: string;
  replacement: string;
  context: NameContext;
  start: number;
  end: number;
}

export interface ProjectNameReport {
  /** Sorted by `start`, offsets in the input. */
  renamed: RenamedName[];
  /**
   * Occurrences left inside longer identifiers (`FlaskClient`, `requestsfoo`): not words, so
   * kept; counted per name so that a reader sees what could still hint at the project.
   */
  inIdentifiers: Record<string, number>;
}

/** Names shorter than this are too common to be a signature of the project (`io`, `re`). */
const MIN_NAME_LENGTH = 3;

/**
 * The project's names for a shuffled checkout of `repo` (`owner/name`): the owner, the
 * repository's name and its top-level packages (`topLevelPackageNames` of the original files),
 * each lower-cased with leading underscores dropped, 3 characters or more. A package's
 * replacement is its shuffled name in `mapping`; the repository's name reuses its package's
 * when they are the same word (`requests`, `flask`), otherwise it is drawn from the mapping's
 * seed and the name (sha256), like every other name the same on every call. Pure.
 *
 * @example projectNames("psf/requests", mapping).map((n) => n.name) // ["psf", "requests"]
 */
export function projectNames(repo: string, mapping: ShuffleMapping): ProjectName[] {
  const names = new Map<string, ProjectName>();
  const add = (raw: string, source: ProjectName["sources"][number], replacement: () => string) => {
    const name = raw.toLowerCase().replace(/^_+/, "");
    if (name.length < MIN_NAME_LENGTH) return;
    const known = names.get(name);
    if (known) {
      if (!known.sources.includes(source)) known.sources.push(source);
      return;
    }
    names.set(name, { name, sources: [source], replacement: replacement() });
  };
  for (const pkg of topLevelPackageNames(Object.keys(mapping.files)))
    add(pkg, "package", () => shuffledPackageName(mapping, pkg));
  const [owner = "", name = ""] = repo.split("/");
  add(name, "repository", () => drawnName(mapping.seed, name));
  add(owner, "owner", () => drawnName(mapping.seed, owner));
  return [...names.values()].sort((a, b) => b.name.length - a.name.length || (a.name < b.name ? -1 : 1));
}

/** The shuffled name of a top-level package (`pkg/` or `src/pkg/`) or module (`pkg.py`), without extension. */
function shuffledPackageName(mapping: ShuffleMapping, pkg: string): string {
  for (const folder of [pkg, `src/${pkg}`]) {
    const renamed = mapping.directories[folder];
    if (renamed !== undefined) return renamed.split("/").at(-1) as string;
  }
  for (const file of [`${pkg}.py`, `src/${pkg}.py`]) {
    const renamed = mapping.files[file];
    if (renamed !== undefined) return (renamed.split("/").at(-1) as string).replace(/\.py$/, "");
  }
  return drawnName(mapping.seed, pkg);
}

function drawnName(seed: number, name: string): string {
  const digest = createHash("sha256").update(`loclab.project-name\0${seed}\0${name.toLowerCase()}`).digest();
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let out = "p_";
  for (let i = 0; i < 6; i += 1) out += alphabet[(digest[i] as number) % alphabet.length];
  return out;
}

/** What continues a word of a project name: a letter or a digit (so `_`, `-`, `.` and `/` bound it). */
export const NAME_WORD_CHAR = /[A-Za-z0-9]/;
const isWordChar = (ch: string | undefined) => ch !== undefined && NAME_WORD_CHAR.test(ch);

/**
 * Every occurrence of a project name as a word replaced (`names` policy, docs/definitions.md §4).
 * A word here is bounded by anything but a letter or a digit, so `_`, `-`, `.` and `/` bound
 * it: `requests-2.3.0-py2.7.egg`, `flask_login`, `$ flask routes`, `github.com/psf/requests`
 * and "a requests exception" all lose the name; `FlaskClient` does not (counted in
 * `inIdentifiers`). Matching ignores case; longer names are tried first. Pure.
 */
export function renameProjectNames(
  text: string,
  names: readonly ProjectName[],
): { text: string; report: ProjectNameReport } {
  const renamed: RenamedName[] = [];
  const inIdentifiers: Record<string, number> = {};
  if (names.length === 0) return { text, report: { renamed, inIdentifiers } };
  const lower = text.toLowerCase();
  const urls = urlSpans(text);
  const taken: boolean[] = [];
  const found: RenamedName[] = [];
  for (const entry of names) {
    for (let at = lower.indexOf(entry.name); at !== -1; at = lower.indexOf(entry.name, at + 1)) {
      const end = at + entry.name.length;
      if (taken[at]) continue;
      if (isWordChar(text[at - 1]) || isWordChar(text[end])) {
        inIdentifiers[entry.name] = (inIdentifiers[entry.name] ?? 0) + 1;
        continue;
      }
      for (let i = at; i < end; i += 1) taken[i] = true;
      found.push({
        name: entry.name,
        original: text.slice(at, end),
        replacement: entry.replacement,
        context: contextOf(text, at, end, urls),
        start: at,
        end,
      });
    }
  }
  found.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let cursor = 0;
  for (const occurrence of found) {
    parts.push(text.slice(cursor, occurrence.start), occurrence.replacement);
    cursor = occurrence.end;
    renamed.push(occurrence);
  }
  parts.push(text.slice(cursor));
  return { text: parts.join(""), report: { renamed, inIdentifiers } };
}

/** The whitespace-delimited token around an occurrence says what kind of text it was. */
function contextOf(
  text: string,
  start: number,
  end: number,
  urls: readonly { start: number; end: number }[],
): NameContext {
  if (urls.some((url) => url.start <= start && end <= url.end)) return "url";
  let from = start;
  while (from > 0 && !/\s/.test(text[from - 1] as string)) from -= 1;
  let to = end;
  while (to < text.length && !/\s/.test(text[to] as string)) to += 1;
  const token = text.slice(from, to).replace(/^[`'"(\[]+|[`'",:;)\]]+$/g, "");
  if (/[\\/]/.test(token)) return "path";
  if (/\w\.\w/.test(token)) return "dotted";
  return "prose";
}
