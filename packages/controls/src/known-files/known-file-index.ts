import { isGenericDir } from "./generic-dirs.js";
import { normalizeRepoPath } from "./known-files.js";
import type { KnownFiles } from "../mask/mask-types.js";

/** A known file a mention resolves to. */
export interface FileResolution {
  file: string;
  /** Other files that fit equally well (empty when the mention is unambiguous). */
  alternatives: string[];
  /** From a generic pattern (a package root), not the known file list. */
  inferred: boolean;
  /** How many trailing path segments (or leading module components) of the mention matched. */
  matched: number;
}

/** Python source files, the ones a dotted module path can name. */
const PYTHON_SOURCE = /\.(?:py|pyi|pyx)$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A last path segment that looks like a file: a name, a dot, an extension (`query.py`, `.gitignore`). */
const FILE_LIKE = /\.[\p{L}\p{N}_-]+$/u;
/** Folders that installed packages live in. */
const INSTALL_DIRS = new Set(["site-packages", "dist-packages"]);
/** Folders whose children are user names or scratch space. */
const USER_DIRS = new Set(["home", "users", "tmp"]);

/**
 * Lookup tables over what is known of a repository's files, for `maskIssuePaths`:
 * every segment suffix of every file (`query.py`, `models/query.py`, …), basenames, the
 * dotted module names of Python files, and package roots.
 *
 * Building costs O(total path segments); a 5,000-file checkout indexes in milliseconds.
 */
export class KnownFileIndex {
  private readonly exact = new Set<string>();
  private readonly bySuffix = new Map<string, string[]>();
  private readonly byBasename = new Map<string, string[]>();
  private readonly byModule = new Map<string, string[]>();
  private readonly rootsByPackage = new Map<string, string[]>();
  private readonly segmentCount = new Map<string, number>();
  private readonly moduleOf = new Map<string, string>();
  /** The most components of any module name in `byModule`: no longer run can match, so none is tried. */
  private maxModuleComponents = 0;
  private maxDepth = 0;

  constructor(known: readonly string[] | KnownFiles) {
    const list = isFileList(known) ? { files: known } : known;
    for (const raw of list.files) {
      const file = normalizeRepoPath(raw);
      if (file === "" || this.exact.has(file)) continue;
      this.exact.add(file);
      const segments = file.split("/");
      this.segmentCount.set(file, segments.length);
      this.maxDepth = Math.max(this.maxDepth, segments.length);
      for (let k = 1; k <= segments.length; k += 1) push(this.bySuffix, segments.slice(-k).join("/"), file);
      push(this.byBasename, segments.at(-1) as string, file);
      this.indexModule(file, segments);
    }
    for (const raw of list.roots ?? []) {
      const root = normalizeRepoPath(raw);
      const name = root.split("/").at(-1);
      if (name) push(this.rootsByPackage, name, root);
    }
  }

  /** Whether `path` is itself a known file (repository-relative, normalized). */
  has(path: string): boolean {
    return this.exact.has(path);
  }

  /**
   * The known file a path mention names, from its segments (separators removed). The mention
   * and the file are compared from the end: with k the number of trailing segments they share,
   * n the mention's and m the file's segment count, the mention names the file when
   * - k = m: the whole file path ends the mention (`/usr/lib/…/site-packages/django/db/models/query.py`,
   *   `a/django/db/models/query.py`, and a top-level `setup.py` inside any path);
   * - k = n ≥ 2: the mention is a tail of the file path (`models/query.py`);
   * - 2 ≤ k < min(n, m), the two diverging at some folder (`site-packages/matplotlib/colors.py` for
   *   `lib/matplotlib/colors.py`), when the shared folders include one that is not generic:
   *   `…/numpy/tests/test_utils.py` shares only `tests/test_utils.py` with
   *   `astropy/utils/tests/test_utils.py` and is another project's file.
   * A single shared segment (`transformers/trainer.py` against `sentence_transformers/trainer.py`)
   * is never enough: the folder before it differs.
   *
   * With `roots` (generic patterns) a mention that holds a package root's folder name followed
   * by a file-looking path names the file under that root (`…/site-packages/django/core/handlers/base.py`
   * → `django/core/handlers/base.py`), marked `inferred`; below a `site-packages` folder only
   * the installed package's name counts, and a folder right under `home`, `Users` or `tmp` is
   * a user's or scratch folder, not the package. A checkout folder named like the package
   * (`/home/u/django/tests/x.py`) is still read as the package: the file is masked, its
   * attribution (`django/tests/x.py`) may be off by that folder.
   */
  resolvePath(segments: readonly string[], options: { useRoots: boolean }): FileResolution | undefined {
    const n = segments.length;
    for (let k = Math.min(n, this.maxDepth); k >= 1; k -= 1) {
      const files = this.bySuffix.get(segments.slice(n - k).join("/"));
      if (!files) continue;
      const fitting = files.filter((file) => this.fits(segments, k, this.segmentCount.get(file) as number));
      if (fitting.length === 0) continue;
      const [file, ...alternatives] = [...fitting].sort(
        (a, b) =>
          Number(this.segmentCount.get(b) === k) - Number(this.segmentCount.get(a) === k) ||
          (this.segmentCount.get(a) as number) - (this.segmentCount.get(b) as number) ||
          compare(a, b),
      );
      return { file: file as string, alternatives, inferred: false, matched: k };
    }
    if (!options.useRoots || !FILE_LIKE.test(segments.at(-1) ?? "")) return undefined;
    // Below an installation folder only the installed package counts: in
    // `…/envs/diffusers/lib/python3.10/site-packages/torch/nn/module.py` the `diffusers` is a
    // virtual environment's name, and the file is torch's.
    const installed = segments.findLastIndex((segment) => INSTALL_DIRS.has(segment.toLowerCase()));
    for (let p = n - 2; p > installed; p -= 1) {
      const roots = this.rootsByPackage.get(segments[p] as string);
      // `/home/ray/…` and `/tmp/ray/…` name a user and a scratch folder, not the package.
      if (!roots || USER_DIRS.has(segments[p - 1]?.toLowerCase() ?? "")) continue;
      const rest = segments.slice(p + 1).join("/");
      const [file, ...alternatives] = roots.map((root) => `${root}/${rest}`).sort(compare);
      return { file: file as string, alternatives, inferred: true, matched: n - p };
    }
    return undefined;
  }

  /** Whether some known file has this basename. */
  hasBasename(name: string): boolean {
    return this.byBasename.has(name);
  }

  /** The known file whose basename this is, when exactly one known file has it. */
  resolveBasename(name: string): FileResolution | undefined {
    const files = this.byBasename.get(name);
    if (!files || files.length !== 1) return undefined;
    return { file: files[0] as string, alternatives: [], inferred: false, matched: 1 };
  }

  /**
   * The known Python file named by the longest leading run (two components or more) of a
   * dotted name: `django.db.models.query.QuerySet` → `django/db/models/query.py` (4 components),
   * `django.db.models.Q` → `django/db/models/__init__.py` (3). A module name is any run of at
   * least two trailing components of the file's module path, so the import name of
   * `lib/matplotlib/axes/_axes.py` is `matplotlib.axes._axes` without knowing that `lib` is a
   * source folder. A one-component name (`requests`, `query`) never counts: it is a plain word.
   */
  resolveModule(components: readonly string[]): FileResolution | undefined {
    // Longest first, but never longer than a known module name: a 100,000-component dotted run
    // (an adversarial issue text) costs as much as a short one.
    for (let j = Math.min(components.length, this.maxModuleComponents); j >= 2; j -= 1) {
      const key = components.slice(0, j).join(".");
      const files = this.byModule.get(key);
      if (!files) continue;
      const [file, ...alternatives] = [...files].sort(
        (a, b) =>
          Number(this.moduleOf.get(b) === key) - Number(this.moduleOf.get(a) === key) ||
          (this.segmentCount.get(a) as number) - (this.segmentCount.get(b) as number) ||
          compare(a, b),
      );
      return { file: file as string, alternatives, inferred: false, matched: j };
    }
    return undefined;
  }

  private fits(segments: readonly string[], k: number, m: number): boolean {
    const n = segments.length;
    if (k === m) return true;
    if (k < 2) return false;
    if (k === n) return true;
    // Diverging before the shared part: some shared folder must be specific to the repository.
    return segments.slice(n - k, n - 1).some((folder) => !isGenericDir(folder));
  }

  private indexModule(file: string, segments: readonly string[]): void {
    if (!PYTHON_SOURCE.test(file)) return;
    const components = [...segments];
    components[components.length - 1] = (components.at(-1) as string).replace(PYTHON_SOURCE, "");
    if (components.at(-1) === "__init__") components.pop();
    // Only the identifier tail can be imported (`src/integrations/prefect-dask/prefect_dask/…`).
    const importable = components.slice(components.findLastIndex((component) => !IDENTIFIER.test(component)) + 1);
    this.moduleOf.set(file, importable.join("."));
    this.maxModuleComponents = Math.max(this.maxModuleComponents, importable.length);
    for (let start = 0; start <= importable.length - 2; start += 1)
      push(this.byModule, importable.slice(start).join("."), file);
  }
}

function isFileList(known: readonly string[] | KnownFiles): known is readonly string[] {
  return Array.isArray(known);
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/** Code-point order, independent of locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
