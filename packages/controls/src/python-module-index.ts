import { normalizeRepoPath } from "./known-files.js";

/**
 * One step of an import resolved inside the repository: a regular package (a folder with
 * `__init__.py`), a namespace package (a folder with Python files below it but no
 * `__init__.py`, PEP 420) or a module file. `path` is the folder or the file.
 */
export type ModuleStep =
  | { kind: "package"; path: string; init: string }
  | { kind: "namespace"; path: string }
  | { kind: "module"; path: string };

/** Files that can be imported as a module, in the order Python prefers them. */
const MODULE_EXTENSIONS = [".py", ".pyi", ".pyx"] as const;
const INIT_FILES = ["__init__.py", "__init__.pyi"] as const;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Static import resolution over a repository's file list, as CPython's path finder would
 * do it with the right folders on `sys.path` — no code runs, no site-packages: an import
 * resolves only to the repository's own files.
 *
 * Import roots of a file (where absolute imports start), in this order:
 * 1. its own root: the nearest folder above it (or its own folder) without `__init__.py`
 *    — the folder `python script.py` and pytest's default `prepend` mode put on `sys.path`,
 *    and the repository root for a package at the top (`django/db/models/query.py` → the
 *    root; `tests/admin_views/tests.py` → `tests/`; `src/pkg/mod.py` → `src/`);
 * 2. `src/`, when it exists and is not a package itself (the src layout);
 * 3. the repository root.
 * The first root that holds the top-level name as a regular package or module wins, the rest
 * of the dotted name then resolves inside it or not at all (no fallback: Python does not fall
 * back either). A top-level namespace package is used only when no root has a regular one
 * (PEP 420). A package folder whose files are all non-Python (templates, static files) is no
 * namespace package. A checkout whose root is itself a package (has `__init__.py`) has the
 * root as its only root: give the folder above it to import the package by name.
 *
 * Relative imports resolve from the importing file's folder (`from . import x` in
 * `a/b/c.py` → `a/b`; each further dot goes one folder up; above the root: unresolved).
 * Inside one folder: a package beats a module file, `.py` beats `.pyi` beats `.pyx`, and a
 * module beats a namespace folder.
 */
export class PythonModuleIndex {
  private readonly files: ReadonlySet<string>;
  private readonly pythonFolders = new Set<string>([""]);
  private readonly rootCache = new Map<string, string[]>();
  private readonly hasSrcRoot: boolean;

  constructor(files: Iterable<string>) {
    const normalized = new Set<string>();
    for (const raw of files) {
      const file = normalizeRepoPath(raw);
      if (file === "") continue;
      normalized.add(file);
      if (!MODULE_EXTENSIONS.some((extension) => file.endsWith(extension))) continue;
      const segments = file.split("/");
      for (let i = 1; i < segments.length; i += 1) this.pythonFolders.add(segments.slice(0, i).join("/"));
    }
    this.files = normalized;
    this.hasSrcRoot = this.pythonFolders.has("src") && this.initOf("src") === undefined;
  }

  /** Whether the repository has this file. */
  has(file: string): boolean {
    return this.files.has(file);
  }

  /** The `__init__` file of a folder, if it is a regular package. */
  initOf(folder: string): string | undefined {
    return INIT_FILES.map((name) => join(folder, name)).find((file) => this.files.has(file));
  }

  /** The folders absolute imports of `file` start from, in order (see the class comment). */
  rootsOf(file: string): string[] {
    const folder = parentOf(file);
    let roots = this.rootCache.get(folder);
    if (!roots) {
      let own = folder;
      while (own !== "" && this.initOf(own) !== undefined) own = parentOf(own);
      roots = [...new Set([own, ...(this.hasSrcRoot ? ["src"] : []), ""])];
      this.rootCache.set(folder, roots);
    }
    return roots;
  }

  /**
   * The entry `name` of a package or folder: a subpackage, a module file, or a namespace
   * folder; `undefined` when there is none or `name` is not an identifier.
   */
  child(folder: string, name: string): ModuleStep | undefined {
    if (!IDENTIFIER.test(name)) return undefined;
    const path = join(folder, name);
    const init = this.initOf(path);
    if (init !== undefined) return { kind: "package", path, init };
    for (const extension of MODULE_EXTENSIONS) if (this.files.has(path + extension)) return { kind: "module", path: path + extension };
    if (this.pythonFolders.has(path)) return { kind: "namespace", path };
    return undefined;
  }

  /** The submodule `name` of a resolved package step (`undefined` for a module file). */
  submodule(step: ModuleStep, name: string): ModuleStep | undefined {
    return step.kind === "module" ? undefined : this.child(step.path, name);
  }

  /**
   * An absolute dotted module (`["django", "db", "models"]`) imported from `file`: one step per
   * component, or `undefined` when it does not resolve completely inside the repository.
   */
  resolveAbsolute(file: string, components: readonly string[]): ModuleStep[] | undefined {
    const [top, ...rest] = components;
    if (top === undefined) return undefined;
    const roots = this.rootsOf(file);
    for (const root of roots) {
      const step = this.child(root, top);
      if (step && step.kind !== "namespace") return this.descend([step], rest);
    }
    for (const root of roots) {
      const step = this.child(root, top);
      if (!step) continue;
      const steps = this.descend([step], rest);
      if (steps) return steps;
    }
    return undefined;
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
  resolveRelative(file: string, level: number, components: readonly string[]): { base: ModuleStep; steps: ModuleStep[] } | undefined {
    let folder = parentOf(file);
    for (let i = 1; i < level; i += 1) {
      if (folder === "") return undefined;
      folder = parentOf(folder);
    }
    const init = this.initOf(folder);
    const base: ModuleStep = init === undefined ? { kind: "namespace", path: folder } : { kind: "package", path: folder, init };
    const steps = this.descend([base], components);
    return steps ? { base, steps: steps.slice(1) } : undefined;
  }

  private descend(steps: ModuleStep[], rest: readonly string[]): ModuleStep[] | undefined {
    let current = steps.at(-1) as ModuleStep;
    for (const name of rest) {
      const next = this.submodule(current, name);
      if (!next) return undefined;
      steps.push(next);
      current = next;
    }
    return steps;
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function join(folder: string, name: string): string {
  return folder === "" ? name : `${folder}/${name}`;
}
