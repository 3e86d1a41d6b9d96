import type { PythonImport } from "./python-imports.js";

/** Files a module can be imported from, in the order one folder prefers them. */
export const MODULE_SUFFIXES = [".py", ".pyi", ".pyx"] as const;
const INIT_FILES = ["__init__.py", "__init__.pyi"] as const;
/** The folder above a root that is itself a package: it holds that package and nothing else. */
const PARENT = "\0parent";

/**
 * One step of a dotted name resolved in the repository: a regular package (a folder with
 * `__init__.py`; `file` is that file), a module file, or a namespace folder (no
 * `__init__.py`, PEP 420; no file).
 */
interface ModuleStep {
  kind: "package" | "module" | "namespace";
  /** The folder of a package or namespace; the file of a module. */
  path: string;
  file: string | undefined;
}

/** Where an import leads: the repository files it names, or the dotted name it could not place. */
export interface ResolvedImport {
  targets: string[];
  external: string[];
}

/**
 * Static resolution of Python imports over a repository's file list, as CPython's path
 * finder would do it with the right folders on `sys.path`; no code runs and nothing outside
 * the repository is consulted.
 *
 * Where absolute imports start, for a file `f` (first root that has the top-level name wins):
 * 1. `f`'s own root: the nearest folder above `f` that is not a package (the folder
 *    `python f.py`, pytest and Django's `runtests.py` put on `sys.path`: `tests/` for
 *    `tests/admin_views/tests.py`, the repository root for `django/db/models/query.py`);
 * 2. `src/` and then `lib/`, when they exist at the top and are not packages (src and lib layouts);
 * 3. the repository root.
 * A regular package or module at any root beats a namespace folder at an earlier one (PEP
 * 420). When the repository root is itself a package (a checkout of `django/` alone, with
 * `__init__.py` at the top), absolute names start with that package's name (`rootPackage`,
 * e.g. `django.db` is the root's `db/`).
 *
 * Inside one folder, `name` is the package `name/` (with `__init__.py`), else the module
 * `name.py`, `name.pyi`, `name.pyx` (first found), else the namespace folder `name/`.
 * Relative imports start at the importing file's folder; each dot past the first climbs one
 * folder; climbing above the root (or above `rootPackage`) does not resolve.
 *
 * What an import names (its targets):
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
export class PythonModuleResolver {
  private readonly files = new Set<string>();
  private readonly folders = new Set<string>([""]);
  private readonly rootPackage: string | undefined;
  private readonly layoutRoots: string[] = [];
  private readonly rootsCache = new Map<string, string[]>();

  constructor(paths: Iterable<string>, options: { rootPackage?: string } = {}) {
    for (const path of paths) {
      this.files.add(path);
      let slash = path.lastIndexOf("/");
      while (slash > 0) {
        const folder = path.slice(0, slash);
        if (this.folders.has(folder)) break;
        this.folders.add(folder);
        slash = folder.lastIndexOf("/");
      }
    }
    this.rootPackage = options.rootPackage !== undefined && this.initOf("") !== undefined ? options.rootPackage : undefined;
    if (this.rootPackage === undefined) {
      for (const layout of ["src", "lib"]) if (this.folders.has(layout) && this.initOf(layout) === undefined) this.layoutRoots.push(layout);
    }
  }

  /** The targets and external names of one import statement of `file`. */
  resolve(file: string, statement: PythonImport): ResolvedImport {
    const targets: string[] = [];
    const external: string[] = [];
    const add = (target: string | undefined, name: string) => {
      if (target === undefined) external.push(name);
      else if (target !== file) targets.push(target);
    };
    if (statement.form === "import") {
      const steps = this.resolveModule(file, 0, statement.module);
      add(steps && deepestFile(steps.steps), statement.module.join("."));
      return { targets, external };
    }
    const dots = ".".repeat(statement.level);
    const written = dots + statement.module.join(".");
    const resolved = this.resolveModule(file, statement.level, statement.module);
    const fallback = resolved && deepestFile(resolved.steps);
    if (statement.module.length === 0 && (statement.wildcard || statement.names.length === 0)) {
      add(fallback, written);
      return { targets, external };
    }
    if (statement.wildcard || !resolved || !resolved.complete) {
      if (statement.module.length > 0) add(fallback, written);
      else for (const name of statement.names) add(fallback, `${dots}${name}`);
      return { targets, external };
    }
    const last = resolved.steps[resolved.steps.length - 1] as ModuleStep;
    for (const name of statement.names) {
      const sub = last.kind === "module" ? undefined : this.child(last.path, name);
      const externalName = statement.module.length > 0 ? written : `${dots}${name}`;
      add(sub?.file ?? fallback, externalName);
    }
    return { targets, external };
  }

  /** The folders absolute imports of `file` start from (see the class comment). */
  rootsOf(file: string): string[] {
    const folder = parentOf(file);
    const cached = this.rootsCache.get(folder);
    if (cached) return cached;
    let own = folder;
    while (own !== PARENT && this.initOf(own) !== undefined) own = own === "" ? PARENT : parentOf(own);
    if (own === PARENT && this.rootPackage === undefined) own = "";
    const roots = this.rootPackage !== undefined ? [own, PARENT] : [own, ...this.layoutRoots, ""];
    const unique = [...new Set(roots)];
    this.rootsCache.set(folder, unique);
    return unique;
  }

  private initOf(folder: string): string | undefined {
    if (folder === PARENT) return undefined;
    for (const name of INIT_FILES) {
      const file = folder === "" ? name : `${folder}/${name}`;
      if (this.files.has(file)) return file;
    }
    return undefined;
  }

  private child(folder: string, name: string): ModuleStep | undefined {
    if (folder === PARENT) {
      return name === this.rootPackage ? { kind: "package", path: "", file: this.initOf("") } : undefined;
    }
    const path = folder === "" ? name : `${folder}/${name}`;
    const init = this.initOf(path);
    if (init !== undefined) return { kind: "package", path, file: init };
    for (const suffix of MODULE_SUFFIXES) if (this.files.has(path + suffix)) return { kind: "module", path: path + suffix, file: path + suffix };
    if (this.folders.has(path)) return { kind: "namespace", path, file: undefined };
    return undefined;
  }

  private resolveModule(file: string, level: number, components: readonly string[]): { steps: ModuleStep[]; complete: boolean } | undefined {
    let start: ModuleStep | undefined;
    let rest: readonly string[];
    if (level === 0) {
      const [top, ...tail] = components;
      if (top === undefined) return undefined;
      const roots = this.rootsOf(file);
      for (const root of roots) {
        const step = this.child(root, top);
        if (step && step.kind !== "namespace") {
          start = step;
          break;
        }
      }
      if (!start) {
        for (const root of roots) {
          start = this.child(root, top);
          if (start) break;
        }
      }
      rest = tail;
    } else {
      let folder = parentOf(file);
      for (let i = 1; i < level; i += 1) {
        if (folder === PARENT) return undefined;
        if (folder === "") {
          if (this.rootPackage === undefined) return undefined;
          folder = PARENT;
        } else folder = parentOf(folder);
      }
      if (folder === PARENT) {
        const [top, ...tail] = components;
        start = top === undefined ? undefined : this.child(PARENT, top);
        rest = tail;
      } else {
        const init = this.initOf(folder);
        start = init === undefined ? { kind: "namespace", path: folder, file: undefined } : { kind: "package", path: folder, file: init };
        rest = components;
      }
    }
    if (!start) return undefined;
    const steps = [start];
    for (const name of rest) {
      const current = steps[steps.length - 1] as ModuleStep;
      const next = current.kind === "module" ? undefined : this.child(current.path, name);
      if (!next) return { steps, complete: false };
      steps.push(next);
    }
    return { steps, complete: true };
  }
}

function deepestFile(steps: readonly ModuleStep[]): string | undefined {
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    const file = (steps[i] as ModuleStep).file;
    if (file !== undefined) return file;
  }
  return undefined;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}
