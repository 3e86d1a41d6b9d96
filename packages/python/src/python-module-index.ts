import type { PythonImport } from "./python-imports.js";
import { INIT_FILES, MODULE_SUFFIXES } from "./module-path.js";

/**
 * One step of a dotted name resolved inside the repository: a regular package (a folder with
 * `__init__.py`; `init` is that file), a namespace package (a folder without `__init__.py`
 * that has Python module files below it, PEP 420) or a module file. `path` is the folder or
 * the file.
 */
export type ModuleStep =
  | { kind: "package"; path: string; init: string }
  | { kind: "namespace"; path: string }
  | { kind: "module"; path: string };

/** Where an import statement leads: the repository files it names, or the dotted names it could not place. */
export interface ResolvedImport {
  targets: string[];
  external: string[];
}

export interface PythonModuleIndexOptions {
  /**
   * The import name of the repository root when the root is itself a package (has
   * `__init__.py`): a checkout of `django/` alone is imported as `django`. Ignored when the
   * root is no package. Leave it out when the root's name may change (repository shuffling
   * renames entries below the root, never the root).
   */
  rootPackage?: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The folder above a root that is itself a package: it holds that package and nothing else. */
export const ABOVE_ROOT = "\0above-root";

/**
 * Static resolution of Python imports over a repository's file list, as CPython's path
 * finder would do it with the right folders on `sys.path`. No code runs and nothing outside
 * the repository is consulted: an import resolves only to the repository's own files. This
 * is the one resolver of loclab: the import graph of the `connected_tree` tool and the import
 * rewriting of repository shuffling both use it, so the two cannot disagree.
 *
 * **Roots** — where the absolute imports of a file `f` start, in order:
 * 1. `f`'s own root: the nearest folder above `f` that is not a package (the folder
 *    `python f.py`, pytest's default `prepend` mode and Django's `runtests.py` put on
 *    `sys.path`: `tests/` for `tests/admin_views/tests.py`, the repository root for
 *    `django/db/models/query.py`);
 * 2. `src/` and then `lib/`, when they exist at the top and are not packages themselves (the
 *    src and lib layouts: `lib/matplotlib/…`);
 * 3. the repository root.
 * When the root is itself a package and `rootPackage` is given, absolute names start above
 * it instead: `django.db` is the root's `db/` (roots 2 and 3 do not apply).
 *
 * **Which root wins** — the first root that holds the top-level name as a regular package or
 * module; the rest of the name resolves inside it or not at all (Python does not fall back to
 * another root either). Only when no root has a regular package or module does a namespace
 * folder count (PEP 420: namespace portions lose to a regular package anywhere on the path);
 * then each root's portion is tried in order and the first that resolves the whole name wins
 * (namespace portions merge in CPython).
 *
 * **Inside a folder** — `name` is the package `name/` (`__init__.py`, else `__init__.pyi`),
 * else the module `name.py`, `name.pyi`, `name.pyx` (first found), else the namespace folder
 * `name/`. A folder counts as a namespace only when some Python module file lies below it: a
 * folder of templates or data is no package (it would lose to an installed package of the
 * same name, which is what such an import means). A name that is not an identifier resolves
 * to nothing.
 *
 * **Relative imports** start at the importing file's folder; each dot past the first climbs
 * one folder; climbing above the root does not resolve (above `rootPackage`, it reaches the
 * folder that holds only the root package).
 *
 * This merges the two resolvers loclab had (the tool suite's and the shuffling control's) as
 * the superset of their rules: `lib/` roots and a root that is a package from the first; the
 * identifier check, namespace folders only with Python files, and trying every namespace
 * portion from the second.
 */
export class PythonModuleIndex {
  private readonly files = new Set<string>();
  /** Folders with at least one module file below them ("" included). */
  private readonly pythonFolders = new Set<string>([""]);
  private readonly rootPackage: string | undefined;
  private readonly layoutRoots: string[] = [];
  private readonly rootsCache = new Map<string, string[]>();

  constructor(paths: Iterable<string>, options: PythonModuleIndexOptions = {}) {
    for (const raw of paths) {
      const file = normalize(raw);
      if (file === "") continue;
      this.files.add(file);
      if (!MODULE_SUFFIXES.some((suffix) => file.endsWith(suffix))) continue;
      let slash = file.lastIndexOf("/");
      while (slash > 0) {
        const folder = file.slice(0, slash);
        if (this.pythonFolders.has(folder)) break;
        this.pythonFolders.add(folder);
        slash = folder.lastIndexOf("/");
      }
    }
    this.rootPackage =
      options.rootPackage !== undefined && this.initOf("") !== undefined ? options.rootPackage : undefined;
    if (this.rootPackage === undefined) {
      for (const layout of ["src", "lib"])
        if (this.pythonFolders.has(layout) && this.initOf(layout) === undefined) this.layoutRoots.push(layout);
    }
  }

  /** Whether the repository has this file. */
  has(file: string): boolean {
    return this.files.has(file);
  }

  /** The `__init__` file of a folder, if it is a regular package. */
  initOf(folder: string): string | undefined {
    if (folder === ABOVE_ROOT) return undefined;
    for (const name of INIT_FILES) {
      const file = join(folder, name);
      if (this.files.has(file)) return file;
    }
    return undefined;
  }

  /** The folders absolute imports of `file` start from, in order (`ABOVE_ROOT` under `rootPackage`). */
  rootsOf(file: string): string[] {
    const folder = parentOf(file);
    const cached = this.rootsCache.get(folder);
    if (cached) return cached;
    let own = folder;
    while (own !== ABOVE_ROOT && this.initOf(own) !== undefined) own = own === "" ? ABOVE_ROOT : parentOf(own);
    if (own === ABOVE_ROOT && this.rootPackage === undefined) own = "";
    const roots = [...new Set(this.rootPackage !== undefined ? [own, ABOVE_ROOT] : [own, ...this.layoutRoots, ""])];
    this.rootsCache.set(folder, roots);
    return roots;
  }

  /** The entry `name` of a folder: a subpackage, a module file, or a namespace folder; `undefined` when there is none. */
  child(folder: string, name: string): ModuleStep | undefined {
    if (!IDENTIFIER.test(name)) return undefined;
    if (folder === ABOVE_ROOT) {
      const init = this.initOf("");
      return name === this.rootPackage && init !== undefined ? { kind: "package", path: "", init } : undefined;
    }
    const path = join(folder, name);
    const init = this.initOf(path);
    if (init !== undefined) return { kind: "package", path, init };
    for (const suffix of MODULE_SUFFIXES)
      if (this.files.has(path + suffix)) return { kind: "module", path: path + suffix };
    if (this.pythonFolders.has(path)) return { kind: "namespace", path };
    return undefined;
  }

  /** The submodule `name` of a resolved step (`undefined` for a module file). */
  submodule(step: ModuleStep, name: string): ModuleStep | undefined {
    return step.kind === "module" ? undefined : this.child(step.path, name);
  }

  /**
   * An absolute dotted module (`["django", "db", "models"]`) imported from `file`: one step per
   * component, or `undefined` when it does not resolve completely inside the repository.
   */
  resolveAbsolute(file: string, components: readonly string[]): ModuleStep[] | undefined {
    const walked = this.walkAbsolute(file, components);
    return walked?.complete ? walked.steps : undefined;
  }

  /**
   * The leading components of an absolute dotted module that resolve inside the repository,
   * one step each, as far as they go (`["sympy", "gone", "x"]` → the step of `sympy`); empty
   * when the first name is not the repository's. What renames the repository's own names in an
   * import of a module that is absent from the tree.
   */
  resolveAbsolutePrefix(file: string, components: readonly string[]): ModuleStep[] {
    return this.walkAbsolute(file, components)?.steps ?? [];
  }

  /** The components of a relative import that resolve, after its base folder, as far as they go (empty when the dots climb above the root). */
  resolveRelativePrefix(file: string, level: number, components: readonly string[]): ModuleStep[] {
    const walked = this.walkRelative(file, level, components);
    if (!walked) return [];
    return walked.base ? walked.steps.slice(1) : walked.steps;
  }

  /**
   * Whether the top-level name of an absolute import is the repository's (some root holds it),
   * whether or not the rest resolves: an import that starts in the repository and then fails
   * is reported, one that names another project is not.
   */
  ownsTopLevel(file: string, top: string): boolean {
    return this.rootsOf(file).some((root) => this.child(root, top) !== undefined);
  }

  /**
   * A relative import from `file`: `level` dots, then `components`. `base` is the folder the
   * dots name; `steps` has one step per component. `undefined` when the dots climb above the
   * root or a component does not resolve.
   */
  resolveRelative(
    file: string,
    level: number,
    components: readonly string[],
  ): { base: ModuleStep; steps: ModuleStep[] } | undefined {
    const walked = this.walkRelative(file, level, components);
    if (!walked?.complete) return undefined;
    return walked.base
      ? { base: walked.base, steps: walked.steps.slice(1) }
      : { base: { kind: "namespace", path: ABOVE_ROOT }, steps: walked.steps };
  }

  /**
   * The targets and external names of one import statement of `file` (the import graph's
   * edges):
   * - `import a.b.c`: the deepest of `a`, `a.b`, `a.b.c` that has a file (a package's
   *   `__init__.py` or a module), so a missing tail (`a.b.gone`) still leads to `a/b/__init__.py`;
   * - `from m import x, y`: for each name, the submodule `m.x` when `m` resolves completely to
   *   a package that has it, else `m`'s deepest file (`x` is then something `m` defines);
   *   `from m import *`: `m`'s deepest file;
   * - a file importing itself (`from . import x` in a package's `__init__.py`) is no target.
   * An import whose first name (or relative base) does not resolve, or that resolves only to
   * namespace folders, is external: it is listed as written (`os.path`, `..gone`, `.x` for
   * `from . import x`).
   */
  resolve(file: string, statement: PythonImport): ResolvedImport {
    const targets: string[] = [];
    const external: string[] = [];
    const add = (target: string | undefined, name: string) => {
      if (target === undefined) external.push(name);
      else if (target !== file) targets.push(target);
    };
    if (statement.form === "import") {
      const walked = this.walkAbsolute(file, statement.module);
      add(walked && deepestFile(walked.steps), statement.module.join("."));
      return { targets, external };
    }
    const dots = ".".repeat(statement.level);
    const written = dots + statement.module.join(".");
    const walked =
      statement.level === 0
        ? this.walkAbsolute(file, statement.module)
        : this.walkRelative(file, statement.level, statement.module);
    const fallback = walked && deepestFile(walked.steps);
    if (statement.module.length === 0 && (statement.wildcard || statement.names.length === 0)) {
      add(fallback, written);
      return { targets, external };
    }
    if (statement.wildcard || !walked || !walked.complete) {
      if (statement.module.length > 0) add(fallback, written);
      else for (const name of statement.names) add(fallback, `${dots}${name}`);
      return { targets, external };
    }
    const last = walked.steps.at(-1) as ModuleStep;
    for (const name of statement.names) {
      const sub = this.submodule(last, name);
      add((sub && fileOf(sub)) ?? fallback, statement.module.length > 0 ? written : `${dots}${name}`);
    }
    return { targets, external };
  }

  /** Steps from the winning root, as far as they go; `complete` when every component resolved. */
  private walkAbsolute(
    file: string,
    components: readonly string[],
  ): { steps: ModuleStep[]; complete: boolean } | undefined {
    const [top, ...rest] = components;
    if (top === undefined) return undefined;
    const roots = this.rootsOf(file);
    for (const root of roots) {
      const step = this.child(root, top);
      if (step && step.kind !== "namespace") return this.descend([step], rest);
    }
    let first: { steps: ModuleStep[]; complete: boolean } | undefined;
    for (const root of roots) {
      const step = this.child(root, top);
      if (!step) continue;
      const walked = this.descend([step], rest);
      if (walked.complete) return walked;
      first ??= walked;
    }
    return first;
  }

  /** Steps of a relative import: the base folder first (none above a root package), then one per component reached. */
  private walkRelative(
    file: string,
    level: number,
    components: readonly string[],
  ): { base: ModuleStep | undefined; steps: ModuleStep[]; complete: boolean } | undefined {
    let folder = parentOf(file);
    for (let i = 1; i < level; i += 1) {
      if (folder === ABOVE_ROOT) return undefined;
      if (folder === "") {
        if (this.rootPackage === undefined) return undefined;
        folder = ABOVE_ROOT;
      } else folder = parentOf(folder);
    }
    if (folder === ABOVE_ROOT) {
      const [top, ...rest] = components;
      const start = top === undefined ? undefined : this.child(ABOVE_ROOT, top);
      return start ? { base: undefined, ...this.descend([start], rest) } : undefined;
    }
    const init = this.initOf(folder);
    const base: ModuleStep =
      init === undefined ? { kind: "namespace", path: folder } : { kind: "package", path: folder, init };
    return { base, ...this.descend([base], components) };
  }

  private descend(steps: ModuleStep[], rest: readonly string[]): { steps: ModuleStep[]; complete: boolean } {
    for (const name of rest) {
      const next = this.submodule(steps.at(-1) as ModuleStep, name);
      if (!next) return { steps, complete: false };
      steps.push(next);
    }
    return { steps, complete: true };
  }
}

/** The file a step stands for: a package's `__init__`, a module file; none for a namespace folder. */
export function fileOf(step: ModuleStep): string | undefined {
  return step.kind === "package" ? step.init : step.kind === "module" ? step.path : undefined;
}

function deepestFile(steps: readonly ModuleStep[]): string | undefined {
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    const file = fileOf(steps[i] as ModuleStep);
    if (file !== undefined) return file;
  }
  return undefined;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function join(folder: string, name: string): string {
  return folder === "" ? name : `${folder}/${name}`;
}

/** Repository-relative with `/`: backslashes, `.` segments and repeated or surrounding slashes dropped. */
function normalize(path: string): string {
  return path
    .split(/[\\/]+/)
    .filter((segment) => segment !== "" && segment !== ".")
    .join("/");
}
