/**
 * Names that repository shuffling (docs/definitions.md §4) never renames, at any depth: the names
 * Python's import system and its tooling give a meaning to, so that the shuffled tree still
 * imports and runs the same way. None of them tells which project the tree is:
 * - `__init__.py`, `__init__.pyi`: a regular package (renaming one turns the package into a
 *   namespace package, or breaks it);
 * - `__main__.py`: what `python -m package` runs;
 * - `py.typed`: the PEP 561 marker of a typed package;
 * - `conftest.py`: pytest finds its fixtures and hooks by this name (it is never imported by
 *   name from code).
 *
 * Also kept, by rule rather than by list: every name that begins with a dot (`.gitignore`,
 * `.flake8`, `.github/`), the hidden tool configurations; the files below a kept folder are
 * still renamed (`.github/workflows/ci.yml` → `.github/d_…/m_….yml`).
 *
 * Also kept: a folder named `src` at the repository root (`SHUFFLE_KEEP_TOP_LEVEL`): the src
 * layout's import root, which Python tooling (and the import census) finds by that name; it
 * says nothing about the project. A `src` folder deeper down is renamed.
 *
 * Renamed like any file: `setup.py`, `setup.cfg`, `pyproject.toml`, `README.rst`, `LICENSE`,
 * test files (`test_*.py`: pytest no longer collects them by pattern), migrations, templates.
 */
export const SHUFFLE_KEEP_NAMES: readonly string[] = [
  "__init__.py",
  "__init__.pyi",
  "__main__.py",
  "py.typed",
  "conftest.py",
];

/** Names kept at the repository root only (see `SHUFFLE_KEEP_NAMES`). */
export const SHUFFLE_KEEP_TOP_LEVEL: readonly string[] = ["src"];

/** A file name cut into the part that is renamed and the extension that is kept. */
export interface SplitFileName {
  stem: string;
  /** With its leading dot (`.py`, `.tar.gz`); empty when the name has none. */
  extension: string;
}

/** One dot-part of an extension: a letter, then up to 7 letters, digits, `_`, `+` or `-`. */
const EXTENSION_PART = /^[A-Za-z][A-Za-z0-9_+-]{0,7}$/;
/** A CPython ABI tag of a compiled extension module (`cpython-311-x86_64-linux-gnu`, `abi3`). */
const ABI_TAG = /^(?:cpython|pypy|cp\d|abi\d)[A-Za-z0-9_-]*$/;
/** At most this many dot-parts form the extension (`.cpython-311-x86_64-linux-gnu.so` is two). */
const MAX_EXTENSION_PARTS = 3;

/**
 * The extension shuffling keeps, and the stem it renames: the longest run of trailing
 * dot-parts (at most 3) that each look like an extension — a letter followed by at most 7
 * letters, digits, `_`, `+`, `-` — or a CPython ABI tag, leaving a non-empty stem. So
 * multi-part extensions stay whole: `archive.tar.gz` → `.tar.gz`, `jquery.min.js` → `.min.js`
 * (and shares its stem with `jquery.js`), `manage.py-tpl` → `.py-tpl`,
 * `_speedups.cpython-311-x86_64-linux-gnu.so` → `.cpython-311-x86_64-linux-gnu.so` (so it keeps
 * pairing with `_speedups.pyi`). A version or a long word is not an extension
 * (`jquery-3.5.1.js` → stem `jquery-3.5.1`, `.js`). Names beginning with a dot are not split
 * (they are kept whole anyway), nor names without a dot (`LICENSE`).
 *
 * @example splitFileName("common-passwords.txt.gz") // { stem: "common-passwords", extension: ".txt.gz" }
 */
export function splitFileName(name: string): SplitFileName {
  if (name.startsWith(".")) return { stem: name, extension: "" };
  const parts = name.split(".");
  let cut = parts.length;
  while (cut > 1 && parts.length - cut < MAX_EXTENSION_PARTS) {
    const part = parts[cut - 1] as string;
    if (!EXTENSION_PART.test(part) && !ABI_TAG.test(part)) break;
    cut -= 1;
  }
  // The stem must keep at least its first part, and a non-empty one.
  cut = Math.max(cut, 1);
  const stem = parts.slice(0, cut).join(".");
  if (stem === "") return { stem: name, extension: "" };
  return { stem, extension: name.slice(stem.length) };
}

/** Whether shuffling keeps this file or folder name: in `keepNames`, or beginning with a dot. */
export function isKeptName(name: string, keepNames: ReadonlySet<string>): boolean {
  return name.startsWith(".") || keepNames.has(name);
}

/** Python source files: the ones whose imports shuffling parses and rewrites. */
export const PYTHON_SOURCE_EXTENSIONS: readonly string[] = [".py", ".pyi"];

/** Whether a path is a Python source file shuffling parses (`.py`, `.pyi`). */
export function isPythonSource(path: string): boolean {
  return PYTHON_SOURCE_EXTENSIONS.some((extension) => path.endsWith(extension));
}
