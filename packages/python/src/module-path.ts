/**
 * Path ↔ dotted-module naming for Python files: the one place that says which files are
 * modules and which dotted names a file can be imported or mentioned by. Masking (what an
 * issue mentions), the known-file index (what a mention names) and shuffling (how a mention is
 * rewritten) all name modules through these functions.
 */

/** Files a module can be imported from, in the order one folder prefers them. */
export const MODULE_SUFFIXES = [".py", ".pyi", ".pyx"] as const;
/** The files that make a folder a regular package, in the order Python prefers them. */
export const INIT_FILES = ["__init__.py", "__init__.pyi"] as const;

const MODULE_FILE = /\.(?:py|pyi|pyx)$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether a path names a Python module file (`.py`, `.pyi`, `.pyx`). */
export function isModuleFile(path: string): boolean {
  return MODULE_FILE.test(path);
}

/** The path without its module suffix (`a/b.py` → `a/b`); the path itself when it has none. */
export function withoutModuleSuffix(path: string): string {
  return path.replace(MODULE_FILE, "");
}

/**
 * The dotted components of a module file's path: the suffix dropped, a package's `__init__`
 * dropped (`a/b/__init__.py` → `a`, `b`; `a/b/c.py` → `a`, `b`, `c`). No check that the
 * components are identifiers: see `importableComponents`.
 */
export function moduleComponents(file: string): string[] {
  const components = withoutModuleSuffix(file).split("/");
  if (components.at(-1) === "__init__") components.pop();
  return components;
}

/**
 * The tail of `moduleComponents` that can be imported: the components after the last one
 * that is not a Python identifier (`src/integrations/prefect-dask/prefect_dask/x.py` →
 * `prefect_dask`, `x`). Empty when the file is no module file or its own name is no identifier.
 */
export function importableComponents(file: string): string[] {
  if (!isModuleFile(file)) return [];
  const components = moduleComponents(file);
  return components.slice(components.findLastIndex((component) => !IDENTIFIER.test(component)) + 1);
}

/**
 * The dotted module names a Python file can be named by: every run of at least
 * `minComponents` (default 2) trailing importable components (`lib/matplotlib/axes/_axes.py`
 * → `lib.matplotlib.axes._axes`, `matplotlib.axes._axes`, `axes._axes`; a package's
 * `__init__` dropped), longest first. Two components by default because a one-component name
 * (`query`, `requests`) is a plain word in an issue text, not evidence of a module.
 *
 * @example dottedModuleNames("django/db/models/__init__.py") // ["django.db.models", "db.models"]
 */
export function dottedModuleNames(file: string, options: { minComponents?: number } = {}): string[] {
  const min = options.minComponents ?? 2;
  const importable = importableComponents(file);
  const names: string[] = [];
  for (let start = 0; start <= importable.length - min; start += 1) names.push(importable.slice(start).join("."));
  return names;
}
