import { gitBlobId, placeBlob } from "./blob-store.js";
import { chmod, mkdir, readdir, readFile, realpath, stat, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ImportRewriteStats, ShuffleMapping, SkippedEntry, UnparsedFile } from "@loclab/controls";
import { loadPythonParser } from "@loclab/python";
import { walkCheckout } from "./checkout-walk.js";
import { pythonFactsStore } from "./python-facts-store.js";

/** Folders never copied: version control data, and bytecode caches (they hold the original names). */
export const DEFAULT_SKIP_DIRECTORIES: readonly string[] = [".git", "__pycache__"];

export interface ShuffleRepositoryOptions {
  /** The checkout to shuffle: read, never written. */
  repo: string;
  /** Where the shuffled copy goes: must not exist, or be an empty folder, outside `repo`. */
  out: string;
  /** Where the mapping JSON goes: a new file outside `out` (and outside `repo`). */
  mapping: string;
  seed: number;
  /** Names never renamed; default `SHUFFLE_KEEP_NAMES`. */
  keepNames?: readonly string[];
  /** Folder names kept at the root only; default `SHUFFLE_KEEP_TOP_LEVEL` (`src`). */
  keepTopLevel?: readonly string[];
  /** Folder names not copied, at any depth; default `DEFAULT_SKIP_DIRECTORIES`. */
  skipDirectories?: readonly string[];
  /** Also rewrite strings that name repository modules (`"django.contrib.admin"`); default off. */
  rewriteDottedStrings?: boolean;
  /** Add `as <original name>` to renamed imports so the code's names stay bound (default on; see `ImportRewriteContext`). */
  keepBindings?: boolean;
  /** Hidden names: rename those naming a top-level package (`project`, default), `keep` them all, or rename `all` (see `PlanRepositoryShuffleOptions`). */
  hiddenNames?: "project" | "keep" | "all";
  /** Files read and written at once; default 16. */
  concurrency?: number;
  /**
   * A folder of parsed Python facts kept across shuffles (`pythonFactsStore`): a file whose
   * bytes were parsed before, at any commit, is not parsed again. The copy is the same with or
   * without it.
   */
  factsDir?: string;
  /**
   * A blob store (blob-store.ts) the copy's files are hard links into, so that a file whose
   * shuffled bytes are the same at another commit is stored once. Its files then have the
   * store's modes (0444, or 0555 when the source is executable): for sources that are
   * themselves read-only cached trees, as the runner's are.
   */
  blobStore?: string;
}

/** What `shuffleRepository` did. Counts are over the copied tree. */
export interface ShuffleReport {
  schemaVersion: 1;
  seed: number;
  /** Absolute paths. */
  repo: string;
  out: string;
  mapping: string;
  /** Regular files written. */
  files: number;
  /** Folders written (the root excluded). */
  directories: number;
  /** Symbolic links written (pointing to the target's shuffled path). */
  symlinks: number;
  /** Entries (files, links, folders) whose name changed; the others are on the keep-list. */
  renamed: number;
  kept: number;
  /** `.py` / `.pyi` files parsed. */
  pythonFiles: number;
  /** Import statements whose text changed. */
  importsRewritten: number;
  /** The import rewriting in detail, summed over files. */
  imports: ImportRewriteStats;
  /**
   * Imports that start in the repository but of which not even the first component could be
   * renamed (a relative import above the root): they still read as written. With the prefix
   * renaming of absent modules this is 0 on the SWE-bench repositories; imports inside parse
   * errors are apart (`imports.skippedInErrors`).
   */
  importsLeftNamingRepository: number;
  /** Hidden files and folders renamed (`hiddenNames`), original paths. */
  hiddenRenamed: string[];
  /**
   * Strings in Python code naming repository modules (`"django.contrib.admin"`) left as
   * written: code that imports by string (`importlib`, `INSTALLED_APPS`, `mock.patch`)
   * will look for the old names at run time.
   */
  unresolvedDynamicReferences: number;
  /**
   * Whole-token mentions of the original names of renamed non-Python files (`base.css`,
   * `README.rst`) left in non-Python text files (docs, configs, templates).
   */
  nonCodeReferencesLeft: number;
  /** The same for names of renamed Python files (`query.py` in a `.rst` or `.po`). */
  nonCodePythonReferencesLeft: number;
  unparsedFiles: UnparsedFile[];
  /** Python files that are not UTF-8 (a `coding:` cookie): rewritten byte-transparently (`decodePythonSource`). */
  notUtf8Files: string[];
  /** Entries not copied, with the reason (symbolic links out of the tree or in a loop, `.git`). */
  skipped: SkippedEntry[];
  /** With `factsDir`: Python files whose facts were found there (not parsed again). */
  factsReused?: number;
  /** Wall-clock time of the whole run. */
  ms: number;
}

const TOOL = "@loclab/tools shuffleRepository";

/**
 * Repository shuffling (docs/definitions.md §4) of a checkout on disk, the file-system side
 * of the control: walks `repo`, reads its Python sources, has the pure planner of
 * @loclab/controls (`planRepositoryShuffle`: every folder and file renamed, seeded, keep-list
 * `SHUFFLE_KEEP_NAMES`; every Python import rewritten so that the copy compiles and its
 * in-repository imports still resolve) decide everything, then writes the shuffled copy to
 * `out` and the mapping JSON (with provenance) to `mapping`, outside the copy: the model works
 * in `out` and never sees it. The clock is read here only (provenance, `ms`).
 *
 * Safety: the original tree is only read. Refused before anything is written: `out` equal
 * to, inside, or around `repo`; `out` existing and not an empty folder; `mapping` inside
 * `out` or `repo`, or already existing. Paths are compared after resolving symbolic links.
 * A failure midway can leave `out` partly written; the mapping is written last.
 *
 * Walking: `.git` and `__pycache__` are skipped (`skipDirectories`). Symbolic links are
 * never followed: a link that resolves inside the tree is written as a link to the target's
 * shuffled path (relative); one that leaves the tree, dangles, or loops (ELOOP, or a link to
 * a folder holding it) is skipped and reported (`walkCheckout`). FIFOs and devices too.
 *
 * Python files (`.py`, `.pyi`) are parsed with tree-sitter (see `UnparsedFile` for files it
 * cannot fully parse, which are not necessarily invalid Python). Non-Python files are copied
 * byte for byte (file modes kept), and mentions of renamed file names left in them are counted.
 *
 * @example await shuffleRepository({ repo: "checkouts/django", out: "shuffled/django", mapping: "keys/django.json", seed: 7 })
 */
export async function shuffleRepository(options: ShuffleRepositoryOptions): Promise<ShuffleReport> {
  const started = performance.now();
  // Imported here, not at the top: every user of the tools (a search, a file view) would
  // otherwise load the controls package and its dependencies at start-up.
  const { isPythonSource, planRepositoryShuffle, referencesLeft } = await import("@loclab/controls");
  if (!Number.isSafeInteger(options.seed))
    throw new RangeError(`shuffleRepository requires an integer seed, got ${options.seed}`);
  const { repo, out, mappingPath } = await checkedPaths(options);
  const walk = await walkCheckout(repo, {
    skipDirectories: new Set(options.skipDirectories ?? DEFAULT_SKIP_DIRECTORIES),
  });
  const concurrency = options.concurrency ?? 16;

  const facts = options.factsDir ? pythonFactsStore(options.factsDir) : undefined;
  // Read the Python sources, then plan everything (pure: controls' planRepositoryShuffle).
  const pythonSources = new Map<string, Buffer>();
  await forEachLimit(walk.files.filter(isPythonSource), concurrency, async (path) => {
    pythonSources.set(path, await readFile(join(repo, path)));
  });
  const plan = planRepositoryShuffle(
    { files: walk.files, directories: walk.directories, symlinks: walk.symlinks, pythonSources },
    {
      seed: options.seed,
      ...(options.keepNames ? { keepNames: options.keepNames } : {}),
      ...(options.keepTopLevel ? { keepTopLevel: options.keepTopLevel } : {}),
      ...(options.rewriteDottedStrings !== undefined ? { rewriteDottedStrings: options.rewriteDottedStrings } : {}),
      ...(options.keepBindings !== undefined ? { keepBindings: options.keepBindings } : {}),
      ...(options.hiddenNames !== undefined ? { hiddenNames: options.hiddenNames } : {}),
      ...(facts ? { factsMemo: facts } : {}),
    },
    await loadPythonParser(),
  );

  // Write the copy: folders (parents first), files (modes kept), links.
  await mkdir(out, { recursive: true });
  for (const folder of plan.directories) await mkdir(join(out, folder));
  let nonCodeReferencesLeft = 0;
  let nonCodePythonReferencesLeft = 0;
  await forEachLimit(walk.files, concurrency, async (path) => {
    const source = join(repo, path);
    const target = join(out, plan.lookup.files.get(path) as string);
    const content = plan.rewritten.get(path) ?? pythonSources.get(path) ?? (await readFile(source));
    const left = referencesLeft(plan, path, content);
    nonCodeReferencesLeft += left.other;
    nonCodePythonReferencesLeft += left.python;
    const mode = (await stat(source)).mode & 0o7777;
    if (options.blobStore) {
      await placeBlob(
        options.blobStore,
        target,
        { oid: gitBlobId(content), executable: (mode & 0o111) !== 0 },
        () => content,
      );
      return;
    }
    await writeFile(target, content, { flag: "wx" });
    await chmod(target, mode);
  });
  for (const link of plan.symlinks) {
    const at = join(out, link.at);
    await symlink(relative(dirname(at), join(out, link.to)) || ".", at);
  }

  const saved: ShuffleMapping = {
    ...plan.mapping,
    provenance: { tool: TOOL, toolVersion: packageVersion(), createdAt: new Date().toISOString(), repo, out },
  };
  await mkdir(dirname(mappingPath), { recursive: true });
  await writeFile(mappingPath, `${JSON.stringify(saved, null, 2)}\n`, { flag: "wx" });

  const skipped = [...walk.skipped, ...plan.skipped].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    schemaVersion: 1,
    seed: options.seed,
    repo,
    out,
    mapping: mappingPath,
    files: walk.files.length,
    directories: walk.directories.length,
    symlinks: plan.symlinks.length,
    renamed: plan.renamed,
    kept: plan.kept,
    pythonFiles: plan.pythonFiles,
    importsRewritten: plan.imports.statementsRewritten,
    imports: plan.imports,
    importsLeftNamingRepository: plan.imports.unresolvedInRepository - plan.imports.prefixRenamed,
    hiddenRenamed: plan.hiddenRenamed,
    unresolvedDynamicReferences: plan.imports.dynamicReferences - plan.imports.dynamicReferencesRewritten,
    nonCodeReferencesLeft,
    nonCodePythonReferencesLeft,
    unparsedFiles: plan.unparsedFiles,
    notUtf8Files: plan.notUtf8Files,
    skipped,
    ...(facts ? { factsReused: facts.hits } : {}),
    ms: Math.round(performance.now() - started),
  };
}

/** Resolves and checks `repo`, `out` and `mapping` (see `shuffleRepository`); nothing is written. */
async function checkedPaths(
  options: ShuffleRepositoryOptions,
): Promise<{ repo: string; out: string; mappingPath: string }> {
  let repo: string;
  try {
    repo = await realpath(resolve(options.repo));
  } catch {
    throw new Error(`shuffleRepository: the checkout ${options.repo} does not exist`);
  }
  if (!(await stat(repo)).isDirectory())
    throw new Error(`shuffleRepository: the checkout ${options.repo} is not a folder`);
  const out = await realFuturePath(resolve(options.out));
  const mappingPath = await realFuturePath(resolve(options.mapping));
  if (isWithin(out, repo))
    throw new Error(
      `shuffleRepository: out (${out}) is inside the checkout (${repo}); the original tree is never written to`,
    );
  if (isWithin(repo, out)) throw new Error(`shuffleRepository: the checkout (${repo}) is inside out (${out})`);
  const existing = await stat(out).catch(() => undefined);
  if (existing && !existing.isDirectory())
    throw new Error(`shuffleRepository: out (${out}) exists and is not a folder`);
  if (existing && (await readdir(out)).length > 0)
    throw new Error(`shuffleRepository: out (${out}) exists and is not empty`);
  if (isWithin(mappingPath, out))
    throw new Error(
      `shuffleRepository: the mapping (${mappingPath}) must be written outside the shuffled tree (${out})`,
    );
  if (isWithin(mappingPath, repo))
    throw new Error(
      `shuffleRepository: the mapping (${mappingPath}) must not be written inside the checkout (${repo})`,
    );
  if (await stat(mappingPath).catch(() => undefined))
    throw new Error(`shuffleRepository: the mapping file ${mappingPath} already exists`);
  return { repo, out, mappingPath };
}

/** The real path of a path that may not exist yet: its nearest existing ancestor resolved, plus the rest. */
async function realFuturePath(path: string): Promise<string> {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(await realpath(at), ...rest.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return path;
      rest.push(basename(at));
      at = parent;
    }
  }
}

/** Whether `path` is `folder` or lies below it. */
function isWithin(path: string, folder: string): boolean {
  const inside = relative(folder, path);
  return inside === "" || (!isAbsolute(inside) && inside !== ".." && !inside.startsWith(`..${sep}`));
}

function packageVersion(): string {
  return (createRequire(import.meta.url)("../package.json") as { version: string }).version;
}

async function forEachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
