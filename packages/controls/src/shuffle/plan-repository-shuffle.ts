import {
  type DecodedPythonSource,
  decodePythonSource,
  encodePythonSource,
  PythonModuleIndex,
  type PythonParser,
  type PythonSourceFacts,
  pythonSourceFacts,
} from "@loclab/python";
import { isGenericDir } from "../known-files/generic-dirs.js";
import { countFileNameMentions } from "../mask/file-name-mentions.js";
import { planShuffle } from "./plan-shuffle.js";
import {
  addImportRewriteStats,
  EMPTY_IMPORT_REWRITE_STATS,
  type ImportRewriteStats,
  planImportRewrites,
} from "./python-import-rewrites.js";
import type { ShuffleMapping } from "./shuffle-mapping.js";
import { isPythonSource, splitFileName } from "./shuffle-names.js";
import { type ShuffleLookup, shuffleLookup } from "./shuffle-paths.js";
import { applyTextEdits } from "./text-edits.js";

/** A symbolic link of the tree that points inside it (never followed; re-pointed in the copy). */
export interface TreeSymlink {
  /** The link, repository-relative. */
  path: string;
  /** What it resolves to (through every link), repository-relative. */
  target: string;
  targetKind: "file" | "directory";
}

/**
 * An entry of a checkout that is not copied:
 * - `skipped-directory`: a folder on the skip list (`.git`, `__pycache__`);
 * - `symlink-outside`: a link that resolves outside the checkout (never followed: the copy
 *   must not pull in, or point to, files that are not the repository's);
 * - `symlink-to-skipped`: a link into a skipped folder;
 * - `symlink-loop`: a link that loops (`a → b → a`: ELOOP), or a link to a folder that
 *   contains the link itself (`x/up → ..`), which a walk following links would descend forever;
 * - `symlink-dangling`: a link to nothing, or to something not copied (a FIFO, say);
 * - `special-file`: a FIFO, socket or device.
 */
export interface SkippedEntry {
  path: string;
  reason:
    | "skipped-directory"
    | "symlink-outside"
    | "symlink-to-skipped"
    | "symlink-loop"
    | "symlink-dangling"
    | "special-file";
}

/** A checkout as the planner sees it: its listing and the bytes of its Python files. */
export interface RepositoryTree {
  /** Regular files, repository-relative with `/`. */
  files: readonly string[];
  /** Every folder (the root excluded). */
  directories: readonly string[];
  symlinks: readonly TreeSymlink[];
  /** The contents of every Python source (`isPythonSource`) among `files`. */
  pythonSources: ReadonlyMap<string, Uint8Array>;
}

export interface PlanRepositoryShuffleOptions {
  seed: number;
  /** Names never renamed; default `SHUFFLE_KEEP_NAMES`. */
  keepNames?: readonly string[];
  /** Folder names kept at the root only; default `SHUFFLE_KEEP_TOP_LEVEL` (`src`). */
  keepTopLevel?: readonly string[];
  /** Also rewrite strings that name repository modules (`"django.contrib.admin"`); default off. */
  rewriteDottedStrings?: boolean;
  /** Add `as <original name>` to renamed imports so the code's names stay bound (default on; see `ImportRewriteContext`). */
  keepBindings?: boolean;
  /**
   * Hidden names (`.github`, `.flaskenv`): `project` (default) renames those that contain the
   * name of one of the repository's top-level packages (`.flaskenv` in flask,
   * `.pylint_primer_tests` in pylint), keeping the dot; `keep` keeps them all; `all` renames
   * them all. Tool configuration names (`.gitignore`, `.github`, `.flake8`) say nothing about
   * the project and are what any repository has; renaming any of them is harmless to Python.
   */
  hiddenNames?: "project" | "keep" | "all";
  /**
   * The facts of Python sources parsed before (for another commit of the repository), by
   * content: the parse, most of a plan's time, is a pure function of a file's bytes, so a file
   * unchanged between commits is not parsed again and the plan is the same as without it.
   */
  factsMemo?: PythonFactsMemo;
}

/** Parsed facts of Python sources, kept by their bytes (the keeper hashes them). */
export interface PythonFactsMemo {
  get(source: Uint8Array): PythonSourceFacts | undefined;
  set(source: Uint8Array, facts: PythonSourceFacts): void;
}

/**
 * The repository's top-level package and module names: folders holding `__init__.py` and
 * `.py` modules at the root or under a root `src/`, without generic names that say nothing
 * about the project (`tests`, `docs`, `tools`: `isGenericDir`). What a hidden name must not
 * contain.
 */
export function topLevelPackageNames(files: readonly string[]): string[] {
  const names = new Set<string>();
  for (const file of files) {
    const parts = file.split("/");
    const inner = parts[0] === "src" && parts.length > 1 ? parts.slice(1) : parts;
    if (
      inner.length === 1 &&
      (inner[0] as string).endsWith(".py") &&
      inner[0] !== "setup.py" &&
      inner[0] !== "conftest.py"
    )
      names.add((inner[0] as string).slice(0, -3));
    if (inner.length === 2 && inner[1] === "__init__.py") names.add(inner[0] as string);
  }
  return [...names].filter((name) => /^[A-Za-z_]\w*$/.test(name) && !isGenericDir(name)).sort();
}

/**
 * A Python file that tree-sitter could not fully parse, or that is not text.
 * - `tree-sitter-error`: the parse has an error node. Imports outside it were rewritten,
 *   those inside it left as written. This says nothing about CPython: the grammar has known
 *   gaps (tree-sitter-python#256: inside brackets, a continuation line indented less than its
 *   block after an operator, e.g. sympy 1.1–1.4's `sets.py`, is an error to tree-sitter and
 *   valid Python), so a file listed here may compile.
 * - `binary`: holds a NUL byte (UTF-16, or not text): copied unchanged.
 */
export interface UnparsedFile {
  /** Original path. */
  path: string;
  reason: "tree-sitter-error" | "binary";
}

/** A link of the shuffled copy: where it stands and what it points at, both shuffled paths. */
export interface PlannedSymlink {
  at: string;
  to: string;
  targetKind: "file" | "directory";
}

/** Everything a shuffled copy is, decided before a byte is written. */
export interface RepositoryShufflePlan {
  /** The renaming (no provenance: the writer adds it). */
  mapping: ShuffleMapping;
  lookup: ShuffleLookup;
  /** Folders to create, shuffled, parents before children. */
  directories: string[];
  /** The links to write (those whose target is not copied are in `skipped`). */
  symlinks: PlannedSymlink[];
  /** Python files whose text changed, original path → new bytes; every other file is copied as it is. */
  rewritten: Map<string, Uint8Array>;
  /** Links left out by the plan (`symlink-dangling`: their target is not copied). */
  skipped: SkippedEntry[];
  pythonFiles: number;
  imports: ImportRewriteStats;
  unparsedFiles: UnparsedFile[];
  /** Python files that are not UTF-8 (a `coding:` cookie): rewritten byte-transparently. */
  notUtf8Files: string[];
  /** Entries whose name changed, and those kept (keep-list). */
  renamed: number;
  kept: number;
  /** Hidden entries (name beginning with a dot) renamed under `hiddenNames`, original paths. */
  hiddenRenamed: string[];
  /** Original names of renamed files with an extension, by kind: what `referencesLeft` counts. */
  renamedNames: { python: ReadonlySet<string>; other: ReadonlySet<string> };
}

/**
 * Plans repository shuffling (docs/definitions.md §4) of a checkout given as a listing and its
 * Python sources: the seeded renaming of every folder and file (`planShuffle`), every Python
 * import rewritten (`planImportRewrites`) so that the copy compiles and its in-repository
 * imports still resolve, the links re-pointed. Pure: no file system, no clock; the parser is
 * passed in (load it with `loadPythonParser` of @loclab/python). The tools package's
 * `shuffleRepository` reads a checkout, calls this, and writes the plan out.
 *
 * A Python file with a tree-sitter error still gets the imports outside the error rewritten
 * and is listed in `unparsedFiles`; one that is not UTF-8 is rewritten byte-transparently and
 * listed in `notUtf8Files`; one with NUL bytes is left unchanged and listed as `binary`.
 *
 * @example const plan = planRepositoryShuffle(tree, { seed: 7 }, await loadPythonParser()); plan.mapping.files["django/db/models/query.py"]
 */
export function planRepositoryShuffle(
  tree: RepositoryTree,
  options: PlanRepositoryShuffleOptions,
  python: PythonParser,
): RepositoryShufflePlan {
  if (!Number.isSafeInteger(options.seed))
    throw new RangeError(`planRepositoryShuffle requires an integer seed, got ${options.seed}`);
  // A link is copied only when its target is copied too.
  const copied = new Set([...tree.files, ...tree.directories]);
  const skipped: SkippedEntry[] = tree.symlinks
    .filter((link) => !copied.has(link.target))
    .map((link) => ({ path: link.path, reason: "symlink-dangling" as const }));
  const links = tree.symlinks.filter((link) => copied.has(link.target));
  const entries = [...tree.files, ...links.map((link) => link.path)];
  const projectNames = topLevelPackageNames(entries)
    .map((name) => name.replace(/^_+/, "").toLowerCase())
    .filter((name) => name.length >= 3);
  const hidden = options.hiddenNames ?? "project";
  const renameHidden =
    hidden === "all"
      ? () => true
      : hidden === "keep"
        ? () => false
        : (name: string) => projectNames.some((project) => name.toLowerCase().includes(project));
  const mapping = planShuffle(entries, {
    seed: options.seed,
    renameHidden,
    directories: tree.directories,
    ...(options.keepNames ? { keepNames: options.keepNames } : {}),
    ...(options.keepTopLevel ? { keepTopLevel: options.keepTopLevel } : {}),
  });
  const lookup = shuffleLookup(mapping, "map");
  const index = new PythonModuleIndex(entries);

  // Parse every Python file (one parser: one file at a time).
  const texts = new Map<string, DecodedPythonSource>();
  const facts = new Map<string, PythonSourceFacts>();
  const unparsedFiles: UnparsedFile[] = [];
  const notUtf8Files: string[] = [];
  for (const path of tree.files.filter(isPythonSource)) {
    const bytes = tree.pythonSources.get(path);
    if (bytes === undefined)
      throw new Error(`planRepositoryShuffle: the contents of the Python file ${path} are missing from pythonSources`);
    const decoded = decodePythonSource(bytes);
    if (!decoded) {
      unparsedFiles.push({ path, reason: "binary" });
      continue;
    }
    if (decoded.encoding !== "utf8") notUtf8Files.push(path);
    let fileFacts = options.factsMemo?.get(bytes);
    if (!fileFacts) {
      fileFacts = pythonSourceFacts(decoded.text, python);
      options.factsMemo?.set(bytes, fileFacts);
    }
    if (fileFacts.hasError) unparsedFiles.push({ path, reason: "tree-sitter-error" });
    texts.set(path, decoded);
    facts.set(path, fileFacts);
  }

  // Plan the import edits of every file.
  let imports: ImportRewriteStats = { ...EMPTY_IMPORT_REWRITE_STATS };
  const rewritten = new Map<string, Uint8Array>();
  const context = {
    index,
    lookup,
    factsOf: (file: string) => facts.get(file),
    rewriteDottedStrings: options.rewriteDottedStrings ?? false,
    keepBindings: options.keepBindings ?? true,
    shadowCache: new Map<string, Set<string>>(),
  };
  for (const [path, fileFacts] of facts) {
    const { edits, stats } = planImportRewrites(path, fileFacts, context);
    imports = addImportRewriteStats(imports, stats);
    const { text, encoding } = texts.get(path) as DecodedPythonSource;
    if (edits.length > 0) rewritten.set(path, encodePythonSource(applyTextEdits(text, edits), encoding));
  }

  const pythonNames = new Set<string>();
  const other = new Set<string>();
  for (const [original, shuffled] of lookup.files) {
    const name = baseName(original);
    if (name === baseName(shuffled) || splitFileName(name).extension === "") continue;
    (isPythonSource(name) ? pythonNames : other).add(name);
  }
  const symlinks = links.map((link) => {
    const to = (
      link.targetKind === "file" ? lookup.files.get(link.target) : lookup.directories.get(link.target)
    ) as string;
    return { at: lookup.files.get(link.path) as string, to, targetKind: link.targetKind };
  });
  const allEntries = [...lookup.files, ...lookup.directories];
  const renamed = allEntries.filter(([original, shuffled]) => baseName(original) !== baseName(shuffled)).length;
  return {
    mapping,
    lookup,
    directories: [...tree.directories].sort().map((folder) => lookup.directories.get(folder) as string),
    symlinks,
    rewritten,
    skipped,
    pythonFiles: facts.size,
    imports,
    unparsedFiles: unparsedFiles.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    notUtf8Files,
    renamed,
    kept: allEntries.length - renamed,
    hiddenRenamed: allEntries
      .filter(([original, shuffled]) => baseName(original).startsWith(".") && baseName(original) !== baseName(shuffled))
      .map(([original]) => original)
      .sort(),
    renamedNames: { python: pythonNames, other },
  };
}

/**
 * Mentions of the original names of renamed files left in one non-Python text file of the
 * copy (`docs/index.rst` naming `base.css` or `query.py`): counted, not rewritten. Pure.
 */
export function referencesLeft(
  plan: RepositoryShufflePlan,
  path: string,
  content: Uint8Array,
): { python: number; other: number } {
  if (isPythonSource(path) || content.subarray(0, 8192).includes(0)) return { python: 0, other: 0 };
  const text = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString("utf8");
  return {
    python: countFileNameMentions(text, plan.renamedNames.python),
    other: countFileNameMentions(text, plan.renamedNames.other),
  };
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
