// File-system helpers of the shuffling tests: temporary trees, exact tree digests, and the two
// independent import censuses (tree-sitter through @loclab/python, CPython's ast).
import { createHash } from "node:crypto";
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { isPythonSource } from "@loclab/controls";
import {
  decodePythonSource,
  type ImportCensus,
  importCensus,
  loadPythonParser,
  type PythonSourceFacts,
  pythonSourceFacts,
} from "@loclab/python";
import { DEFAULT_SKIP_DIRECTORIES, walkCheckout } from "@loclab/tools";

/** Debian's own Python: the one the python3-* packages are installed for (toolchain.md). */
export const SYSTEM_PYTHON = "/usr/bin/python3";
export const CENSUS_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "import_census.py");

/** A fresh temporary folder, removed by the returned `cleanup`. */
export async function temporaryFolder(prefix: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `loclab-${prefix}-`));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** Writes files (path → content) under `root`; a value `{ link }` makes a symbolic link. */
export async function writeTree(root: string, files: Record<string, string | { link: string }>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const at = join(root, path);
    await mkdir(dirname(at), { recursive: true });
    if (typeof content === "string") await writeFile(at, content);
    else await symlink(content.link, at);
  }
}

/**
 * Every entry of a tree (skipping `.git`, `__pycache__`) with a content hash: SHA-256 of a
 * file, `link:` + target of a link, `dir` for a folder. Compares trees exactly.
 */
export async function treeDigest(root: string): Promise<Map<string, string>> {
  const walk = await walkCheckout(root, { skipDirectories: new Set(DEFAULT_SKIP_DIRECTORIES) });
  const digest = new Map<string, string>();
  for (const folder of walk.directories) digest.set(folder, "dir");
  for (const file of walk.files)
    digest.set(
      file,
      createHash("sha256")
        .update(await readFile(join(root, file)))
        .digest("hex"),
    );
  for (const entry of [...walk.symlinks, ...walk.skipped]) {
    const at = join(root, entry.path);
    if ((await lstat(at)).isSymbolicLink()) digest.set(entry.path, `link:${await readlink(at)}`);
  }
  return new Map([...digest].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The import census (`importCensus`) of a tree on disk, parsed with tree-sitter. */
export async function treeCensus(root: string): Promise<ImportCensus> {
  const walk = await walkCheckout(root, { skipDirectories: new Set(DEFAULT_SKIP_DIRECTORIES) });
  const python = await loadPythonParser();
  const facts = new Map<string, PythonSourceFacts>();
  for (const file of walk.files.filter(isPythonSource)) {
    const decoded = decodePythonSource(await readFile(join(root, file)));
    if (decoded) facts.set(file, pythonSourceFacts(decoded.text, python));
  }
  return importCensus([...walk.files, ...walk.symlinks.map((link) => link.path)], facts);
}

/** The independent census of `fixtures/import_census.py` (CPython's ast), or undefined without Debian's Python. */
export async function pythonCensus(root: string): Promise<Record<string, number>> {
  const { stdout } = await execa(SYSTEM_PYTHON, [CENSUS_SCRIPT, root]);
  return JSON.parse(stdout) as Record<string, number>;
}
