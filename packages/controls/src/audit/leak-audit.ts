import { NAME_WORD_CHAR } from "../shuffle/project-names.js";

/**
 * What a control must keep from the model, looked for in the text it was given (docs/definitions.md
 * §4, "Leak audit"). Every list is in the task's original names.
 */
export interface LeakAuditInput {
  /** The text the model was given (the first system and user messages, joined). */
  text: string;
  instanceId: string;
  /** `owner/name`. */
  repo: string;
  /** The repository's top-level package and module names (`topLevelPackageNames`). */
  packages: readonly string[];
  /** The gold files (repository-relative paths). */
  goldFiles: readonly string[];
  /** The gold symbols' names (`resolve_redirects`, `Session.request`). */
  goldSymbols: readonly string[];
}

/** Counts of occurrences in the text; each occurrence is counted once, under the first kind that claims it. */
export interface LeakAudit {
  instanceId: number;
  owner: number;
  repository: number;
  packages: number;
  /** A gold file's path: its last two segments or more (`requests/sessions.py`), or the whole path of a top-level file. */
  goldPaths: number;
  /** A gold file's dotted module path of two components or more (`requests.sessions`). */
  goldModules: number;
  /** A gold file's bare name (`sessions.py`) outside a path: masking leaves a name that several files share. */
  goldFileNames: number;
  /** A gold symbol's last name as a word (`resolve_redirects`). */
  goldSymbols: number;
  /** What was found, `kind:term` once each, in the order of the fields above (at most 20). */
  found: string[];
}

export const LEAK_AUDIT_COUNTS = [
  "instanceId",
  "owner",
  "repository",
  "packages",
  "goldPaths",
  "goldModules",
  "goldFileNames",
  "goldSymbols",
] as const;
export type LeakAuditCount = (typeof LEAK_AUDIT_COUNTS)[number];

const MAX_FOUND = 20;
const IDENTIFIER_CHAR = /[A-Za-z0-9_]/;

/**
 * The leak audit of one attempt: how often the text names the instance (its id), the
 * repository (owner and name, as words: bounded by anything but a letter or digit, as the
 * shuffle's `names` policy renames them), its top-level packages, and the gold (paths, dotted
 * modules, bare file names, symbols, as identifiers: bounded by anything but a letter, digit or
 * `_`). Case is ignored for names and kept for gold. An occurrence inside one already counted
 * (the package inside a gold path) is not counted again. Names shorter than 3 characters are
 * not looked for. Pure.
 *
 * @example leakAudit({ text: "see requests/sessions.py", instanceId: "psf__requests-2148", repo: "psf/requests", packages: ["requests"], goldFiles: ["requests/sessions.py"], goldSymbols: [] }).goldPaths // 1
 */
export function leakAudit(input: LeakAuditInput): LeakAudit {
  const { text } = input;
  const taken: boolean[] = [];
  const found: string[] = [];
  const count = (
    kind: LeakAuditCount,
    terms: readonly string[],
    options: { ignoreCase: boolean; boundary: RegExp },
  ): number => {
    let total = 0;
    const haystack = options.ignoreCase ? text.toLowerCase() : text;
    const sorted = [...new Set(terms.filter((term) => term.length >= 3))].sort((a, b) => b.length - a.length);
    for (const term of sorted) {
      const needle = options.ignoreCase ? term.toLowerCase() : term;
      let hits = 0;
      for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
        const end = at + needle.length;
        if (taken[at] || taken[end - 1]) continue;
        if (isBounded(text, at, end, options.boundary)) {
          for (let i = at; i < end; i += 1) taken[i] = true;
          hits += 1;
        }
      }
      if (hits > 0 && found.length < MAX_FOUND) found.push(`${kind}:${term}`);
      total += hits;
    }
    return total;
  };
  const [owner = "", repository = ""] = input.repo.split("/");
  // Names are words as the shuffle's `names` policy matches them (`NAME_WORD_CHAR`).
  const names = { ignoreCase: true, boundary: NAME_WORD_CHAR };
  const code = { ignoreCase: false, boundary: IDENTIFIER_CHAR };
  // Longest and most specific first: the id holds the repository's name, a gold path its package.
  const audit = {
    instanceId: count("instanceId", [input.instanceId], names),
    goldPaths: count("goldPaths", input.goldFiles.map(pathTail), code),
    goldModules: count(
      "goldModules",
      input.goldFiles.map(moduleTail).filter((module): module is string => module !== undefined),
      code,
    ),
    goldFileNames: count(
      "goldFileNames",
      input.goldFiles.map((file) => file.split("/").at(-1) as string),
      code,
    ),
    goldSymbols: count(
      "goldSymbols",
      input.goldSymbols.map((symbol) => symbol.split(".").at(-1) as string),
      code,
    ),
    repository: count("repository", [repository.replace(/^_+/, "")], names),
    owner: count("owner", [owner], names),
    packages: count(
      "packages",
      input.packages.map((pkg) => pkg.replace(/^_+/, "")),
      names,
    ),
  };
  const order = new Map(LEAK_AUDIT_COUNTS.map((kind, index) => [kind, index]));
  found.sort(
    (a, b) => (order.get(a.split(":")[0] as LeakAuditCount) ?? 0) - (order.get(b.split(":")[0] as LeakAuditCount) ?? 0),
  );
  return { ...audit, found };
}

function isBounded(text: string, start: number, end: number, boundary: RegExp): boolean {
  const before = text[start - 1];
  const after = text[end];
  return !(before !== undefined && boundary.test(before)) && !(after !== undefined && boundary.test(after));
}

/** The last two segments of a path (`a/b/c.py` → `b/c.py`), or the path itself when it has one. */
function pathTail(file: string): string {
  return file.split("/").slice(-2).join("/");
}

/** `a/b/c.py` → `b.c`, `a/b/__init__.py` → `a.b`; undefined for other files and one-component modules. */
function moduleTail(file: string): string | undefined {
  if (!/\.pyi?$/.test(file)) return undefined;
  const components = file.replace(/\.pyi?$/, "").split("/");
  if (components.at(-1) === "__init__") components.pop();
  if (components[0] === "src") components.shift();
  return components.length >= 2 ? components.slice(-2).join(".") : undefined;
}
