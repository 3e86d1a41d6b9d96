import { normalizeRepoPath } from "../known-files/known-files.js";
import { createHash } from "node:crypto";
import { type SeededRandom, seededRandom } from "@loclab/statistics";
import { SHUFFLE_MAPPING_SCHEMA_VERSION, type ShuffleMapping } from "./shuffle-mapping.js";
import { isKeptName, SHUFFLE_KEEP_NAMES, SHUFFLE_KEEP_TOP_LEVEL, splitFileName } from "./shuffle-names.js";

export interface PlanShuffleOptions {
  /** Any safe integer; the same seed and file list give the same plan. */
  seed: number;
  /** Names never renamed; default `SHUFFLE_KEEP_NAMES` (dot-names are always kept). */
  keepNames?: readonly string[];
  /** Folder names kept at the repository root only; default `SHUFFLE_KEEP_TOP_LEVEL` (`src`). */
  keepTopLevel?: readonly string[];
  /** Extra directories to rename that hold no file (empty folders of a checkout). */
  directories?: readonly string[];
  /**
   * Hidden names (beginning with a dot) to rename after all: they get a drawn name that keeps
   * the dot (`.flaskenv` → `.m_…`, `.pylint_primer_tests/` → `.d_…/`), so they stay hidden.
   * Default none.
   */
  renameHidden?: (name: string) => boolean;
}

/** Characters of a drawn name after its prefix: lower case only, so case never matters. */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** Drawn characters per name: 36^6 ≈ 2.2·10^9 names, redrawn on a clash. */
const NAME_LENGTH = 6;
const DIRECTORY_PREFIX = "d_";
const FILE_PREFIX = "m_";

/**
 * The plan of repository shuffling (docs/definitions.md §4): a seeded, one-to-one renaming of every
 * directory and file of a checkout, given its repository-relative file list.
 *
 * Every name segment not on the keep-list (`SHUFFLE_KEEP_NAMES`, names beginning with a dot,
 * and a top-level `src/`: `SHUFFLE_KEEP_TOP_LEVEL`) is replaced by a drawn identifier — `d_`
 * + 6 characters for a folder, `m_` + 6 for a file stem — which is a valid Python
 * identifier, so packages and modules stay importable (`django/db/models/query.py` → `d_k3x9q2/d_0hq7re/d_p1m4xa/m_p8w1z0.py`). The extension is
 * kept (`splitFileName`: `.py`, `.tar.gz`, `.min.js`); files of one folder that share a stem
 * share the drawn stem (`query.py` + `query.pyi` → `m_p8w1z0.py` + `m_p8w1z0.pyi`, and
 * `django.po` + `django.mo`), so a stub, a compiled extension or a catalog stays paired with
 * its source. Other equal names in different folders get different names, so the shuffled
 * tree does not reveal that two files had the same name.
 *
 * Names are drawn once for the whole tree and never repeat, compared case-insensitively: two
 * entries that differ only in case (`README` and `readme`, legal on Linux) become two distinct
 * lower-case names, so the shuffled tree has no case-only clash even where the original has
 * one, and checks out on case-insensitive file systems. Kept names are kept as they are, case
 * included (a clash between two kept names is the original's).
 *
 * Deterministic: paths are normalized (`./`, `\`) and sorted (code-point order) before any
 * draw, folders first, then file stems, so the input order does not matter; the same seed and
 * files give the same plan, another seed another plan. A path given twice, a path that is
 * both a file and a folder, an empty path or one with `..` is an error.
 *
 * Pure: randomness only from `seed` and each entry's own path (xoshiro128** via seededRandom
 * of @loclab/statistics, unbiased integer draws, one generator per entry), so an entry's name
 * does not depend on which other entries the tree holds. Cost: O(n log n) in the number of entries.
 *
 * @example planShuffle(["django/__init__.py", "django/db/models/query.py"], { seed: 7 }).files["django/__init__.py"]
 * // "d_…/__init__.py"
 */
export function planShuffle(files: readonly string[], options: PlanShuffleOptions): ShuffleMapping {
  if (!Number.isSafeInteger(options.seed))
    throw new RangeError(`planShuffle requires an integer seed, got ${options.seed}`);
  const keepNames = new Set(options.keepNames ?? SHUFFLE_KEEP_NAMES);
  const keepTopLevel = new Set(options.keepTopLevel ?? SHUFFLE_KEEP_TOP_LEVEL);
  const fileList = normalizedUnique(files, "file");
  const directorySet = new Set<string>();
  const addFolders = (path: string, upTo: number) => {
    const segments = path.split("/");
    for (let i = 1; i <= segments.length + upTo; i += 1) directorySet.add(segments.slice(0, i).join("/"));
  };
  for (const path of fileList) addFolders(path, -1);
  for (const path of normalizedUnique(options.directories ?? [], "directory")) addFolders(path, 0);
  for (const path of fileList) {
    if (directorySet.has(path))
      throw new Error(`planShuffle: ${path} is listed as a file but also holds other entries`);
  }

  const renameHidden = options.renameHidden ?? (() => false);
  const isKept = (name: string) => isKeptName(name, keepNames) && !(name.startsWith(".") && renameHidden(name));
  const taken = new Set<string>();
  for (const path of [...fileList, ...directorySet]) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (isKept(name) || keepTopLevel.has(name)) taken.add(name.toLowerCase());
  }
  // Each name from a generator of its own, seeded by the seed and the entry (a folder's path,
  // a file's folder and stem): an entry keeps its name at every commit that holds it, so two
  // commits' shuffled copies differ only where their trees do (issue 53).
  const draw = (prefix: string, key: string, hidden = false) =>
    (hidden ? "." : "") + drawName(entryRandom(options.seed, prefix, key), prefix, taken);

  const directories = new Map<string, string>();
  for (const path of [...directorySet].sort(compare)) {
    const { parent, name } = splitPath(path);
    const kept = isKept(name) || (parent === "" && keepTopLevel.has(name));
    const renamed = kept ? name : draw(DIRECTORY_PREFIX, path, name.startsWith("."));
    directories.set(path, join(parent === "" ? "" : (directories.get(parent) as string), renamed));
  }

  const stems = new Map<string, string>();
  const mapped = new Map<string, string>();
  for (const path of [...fileList].sort(compare)) {
    const { parent, name } = splitPath(path);
    const newParent = parent === "" ? "" : (directories.get(parent) as string);
    if (isKept(name)) {
      mapped.set(path, join(newParent, name));
      continue;
    }
    const { stem, extension } = splitFileName(name);
    const key = `${parent}\0${stem}`;
    let newStem = stems.get(key);
    if (newStem === undefined) {
      newStem = draw(FILE_PREFIX, key, name.startsWith("."));
      stems.set(key, newStem);
    }
    mapped.set(path, join(newParent, newStem + extension));
  }

  return {
    schemaVersion: SHUFFLE_MAPPING_SCHEMA_VERSION,
    seed: options.seed,
    directories: Object.fromEntries(directories),
    files: Object.fromEntries([...mapped].sort(([a], [b]) => compare(a, b))),
  };
}

/** The generator of one entry's name: xoshiro128** seeded by sha-256 of the seed, the kind and the entry. */
function entryRandom(seed: number, prefix: string, key: string): SeededRandom {
  const digest = createHash("sha256").update(`loclab.shuffle-name\0${seed}\0${prefix}\0${key}`).digest();
  // 48 bits: a safe integer.
  return seededRandom(digest.readUIntBE(0, 6));
}

/**
 * A fresh name: prefix + 6 drawn characters, unseen so far in any case. A name already taken
 * (one chance in about 10^5 for a tree of 10,000 entries) draws again from the same generator.
 */
function drawName(rng: SeededRandom, prefix: string, taken: Set<string>): string {
  for (;;) {
    let name = prefix;
    for (let i = 0; i < NAME_LENGTH; i += 1) name += ALPHABET[rng.nextBelow(ALPHABET.length)];
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

function normalizedUnique(paths: readonly string[], what: string): Set<string> {
  const seen = new Set<string>();
  for (const raw of paths) {
    const path = normalizeRepoPath(raw);
    if (path === "") throw new Error(`planShuffle: empty ${what} path ${JSON.stringify(raw)}`);
    if (path.split("/").includes(".."))
      throw new Error(`planShuffle: ${what} path ${JSON.stringify(raw)} leaves the repository`);
    if (seen.has(path) && what === "file") throw new Error(`planShuffle: ${path} is listed twice`);
    seen.add(path);
  }
  return seen;
}

function splitPath(path: string): { parent: string; name: string } {
  const slash = path.lastIndexOf("/");
  return { parent: slash < 0 ? "" : path.slice(0, slash), name: path.slice(slash + 1) };
}

function join(parent: string, name: string): string {
  return parent === "" ? name : `${parent}/${name}`;
}

/** Code-point order, independent of locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
