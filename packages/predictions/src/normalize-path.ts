export interface NormalizePathOptions {
  /** The instance's repository as `owner/name` (SWE-bench's `repo` field), e.g. `django/django`. */
  repo?: string;
  /**
   * The repository's files at `base_commit`, repository-relative. With it, a prefix that
   * could be either noise or a real directory is stripped only when the file list decides.
   */
  knownFiles?: ReadonlySet<string>;
}

/** Diff prefixes (`git diff` writes `a/x.py` and `b/x.py`); models copy them from patches. */
const DIFF_PREFIXES = ["a/", "b/"] as const;

/**
 * A path as written by a localizer, rewritten to the repository-relative form gold uses, so
 * that `./django/db/models/query.py` and `django/db/models/query.py` count as the same file
 * (docs/definitions.md §3: "strip `./`, `a/`, a leading repository name, backslashes").
 *
 * Always, whatever the options (none of these can be part of a repository-relative path):
 * 1. surrounding whitespace is trimmed (a model's list item, not part of a file name);
 * 2. backslashes become `/` (Windows-style output: `astropy\io\fits\column.py`);
 * 3. runs of `/` collapse to one (`astropy//io` is the same path to every file system);
 * 4. leading `./` (repeatedly) and a leading `/` are removed (`././x.py`, `/x.py`).
 *
 * Prefixes, which can be noise or a real directory:
 * 5. `a/` or `b/` (diff prefixes): only when `knownFiles` is given and names the stripped path
 *    but not the path as written. A repository may have a real top-level `a/` or `b/`.
 * 6. `owner__name/` (SWE-bench's instance-id spelling of the repository, used as a checkout
 *    folder): always when `repo` is given; no repository has such a directory of itself.
 * 7. `owner/name/`: when `repo` is given and owner ≠ name. When owner = name (`django/django`,
 *    `astropy/astropy`), `django/django/db/x.py` more likely means a `django/` checkout folder
 *    around the real path `django/db/x.py`, so without a file list it is left as written.
 * 8. `name/` alone: only when `knownFiles` says so (stripped path known, as written not). For
 *    `django/django` the package directory is itself `django/`: `django/db/models/query.py` is
 *    already a repository path and must not lose its first segment.
 *
 * With `knownFiles`, a path it already contains is returned after rules 1–4 untouched;
 * otherwise prefix strips (5–8, and two in a row, such as `a/` then `owner__name/`) are tried
 * in that order and the first result the file list contains wins. When none is known (a
 * hallucinated or deleted file), rules 6 and 7 still apply as without a file list.
 *
 * Pure string work: no file system. Cost O(length of the path).
 *
 * @example normalizeRepoPath(".\\sklearn\\base.py") // "sklearn/base.py"
 * @example normalizeRepoPath("django__django/django/db/models/query.py", { repo: "django/django" }) // "django/db/models/query.py"
 */
export function normalizeRepoPath(path: string, options: NormalizePathOptions = {}): string {
  const cleaned = cleanPath(path);
  if (cleaned === "") return cleaned;
  const repoPrefixes = repositoryPrefixes(options.repo);
  const { knownFiles } = options;
  if (knownFiles) {
    if (knownFiles.has(cleaned)) return cleaned;
    const prefixes = [...DIFF_PREFIXES, ...repoPrefixes.all];
    const found = firstKnownStrip(cleaned, prefixes, knownFiles);
    if (found !== undefined) return found;
  }
  for (const prefix of repoPrefixes.unambiguous) {
    if (cleaned.startsWith(prefix) && cleaned.length > prefix.length) return cleaned.slice(prefix.length);
  }
  return cleaned;
}

/**
 * A symbol id `path:Name` (`astropy/io/fits/fitsrec.py:FITS_rec._convert_ascii`, the form of
 * LocAgent's entities and loclab's `functions` / `modules`) with its path part normalized by
 * `normalizeRepoPath`; the name after the first `:` is kept as written (paths never contain
 * `:`, names are compared as the localizer wrote them). An id without `:` is a bare path.
 *
 * @example normalizeSymbolId("./a.py:A.f") // "a.py:A.f"
 */
export function normalizeSymbolId(id: string, options: NormalizePathOptions = {}): string {
  const colon = id.indexOf(":");
  if (colon < 0) return normalizeRepoPath(id, options);
  return `${normalizeRepoPath(id.slice(0, colon), options)}${id.slice(colon)}`;
}

/** Rules 1–4 of `normalizeRepoPath`: the rewrites that never depend on the repository. */
function cleanPath(path: string): string {
  let text = path
    .trim()
    .replace(/\\/g, "/")
    .replace(/\/{2,}/g, "/");
  for (;;) {
    if (text.startsWith("./")) text = text.slice(2);
    else if (text.startsWith("/")) text = text.slice(1);
    else return text;
  }
}

/** The repository prefixes of rules 6–8, and which of them may be stripped without a file list. */
function repositoryPrefixes(repo: string | undefined): { all: string[]; unambiguous: string[] } {
  if (!repo) return { all: [], unambiguous: [] };
  const [owner, name] = repo.split("/");
  if (!owner || !name) return { all: [], unambiguous: [] };
  const underscored = `${owner}__${name}/`;
  const slashed = `${owner}/${name}/`;
  return {
    all: [underscored, slashed, `${name}/`],
    unambiguous: owner === name ? [underscored] : [underscored, slashed],
  };
}

/** Strips one prefix, or two in a row, and returns the first result `knownFiles` contains. */
function firstKnownStrip(
  path: string,
  prefixes: readonly string[],
  knownFiles: ReadonlySet<string>,
): string | undefined {
  const once: string[] = [];
  for (const prefix of prefixes) {
    if (!path.startsWith(prefix)) continue;
    const stripped = path.slice(prefix.length);
    if (knownFiles.has(stripped)) return stripped;
    once.push(stripped);
  }
  for (const stripped of once) {
    for (const prefix of prefixes) {
      if (stripped.startsWith(prefix) && knownFiles.has(stripped.slice(prefix.length)))
        return stripped.slice(prefix.length);
    }
  }
  return undefined;
}
