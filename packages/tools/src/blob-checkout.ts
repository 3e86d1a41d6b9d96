import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { type BlobKey, hasBlob, placeBlob, storeBlob } from "./blob-store.js";
import { gitEnvironment, runGit } from "./git.js";
import { WorkspaceError } from "./tool-error.js";

/** One record of `git ls-files --stage -z`. */
export interface StagedEntry {
  mode: string;
  oid: string;
  path: string;
}

/** Parses `git ls-files --stage -z` keeping the object ids (`<mode> <object> <stage>\t<path>\0`). */
export function parseStagedEntries(output: string): StagedEntry[] {
  const entries: StagedEntry[] = [];
  for (const record of output.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, oid] = record.slice(0, tab).split(" ") as [string, string];
    entries.push({ mode, oid, path: record.slice(tab + 1) });
  }
  return entries;
}

interface Mirror {
  path: string;
  gitDir: string;
}

/**
 * Writes the files of an index (`entries`, from `git ls-files --stage` after `read-tree`) into
 * `tree` as `git checkout-index --all` would (the same bytes, modes 0444/0555 once made
 * read-only, symbolic links with git's target, an empty folder per submodule), but each
 * regular file is a hard link into the blob store: the contents the store lacks are read
 * from the mirror in one `git cat-file --batch` and stored first. A blob the mirror lacks is
 * a `partial-mirror` error naming its path.
 */
export async function checkoutFromBlobs(options: {
  mirror: Mirror;
  repo: string;
  commit: string;
  entries: readonly StagedEntry[];
  /** The temporary index file `read-tree` filled (where git reads `.gitattributes` from). */
  indexFile: string;
  tree: string;
  store: string;
}): Promise<void> {
  const { mirror, entries, tree, store } = options;
  const folders = new Set<string>();
  for (const entry of entries) {
    const parts = entry.path.split("/");
    for (let end = 1; end < parts.length; end += 1) folders.add(parts.slice(0, end).join("/"));
    if (entry.mode === "160000") folders.add(entry.path);
  }
  // Parents before children: a folder's name sorts before its descendants'.
  for (const folder of [...folders].sort()) await mkdir(join(tree, folder), { recursive: true });

  const keyOf = (entry: StagedEntry): BlobKey => ({ oid: entry.oid, executable: entry.mode === "100755" });
  // Files git would convert on checkout (eol, ident, filters: `.gitattributes`, the mirror's
  // own config) are not the blob's bytes: git writes those itself, as before.
  const converted = await pathsGitConverts(options.mirror, options.indexFile, tree, entries);
  if (converted === "all" || converted.size > 0) {
    const paths = converted === "all" ? entries.map((entry) => entry.path) : [...converted];
    await runGitWithInput(
      ["--git-dir", mirror.gitDir, "--work-tree", tree, "checkout-index", "--force", "-z", "--stdin"],
      mirror,
      `${paths.join("\0")}\0`,
      { GIT_INDEX_FILE: options.indexFile },
    );
    await makeReadOnly(
      tree,
      entries.filter((entry) => converted === "all" || converted.has(entry.path)),
    );
    if (converted === "all") return;
  }
  const regular = entries.filter(
    (entry) => (entry.mode === "100644" || entry.mode === "100755") && !(converted as Set<string>).has(entry.path),
  );
  const links = entries.filter((entry) => entry.mode === "120000" && !(converted as Set<string>).has(entry.path));
  // One read of the mirror for every blob the store lacks, and for every link's target.
  const wanted = new Map<string, string>();
  for (const entry of regular) if (!hasBlob(store, keyOf(entry))) wanted.set(entry.oid, entry.path);
  for (const entry of links) wanted.set(entry.oid, entry.path);
  const contents = await readBlobs(mirror, options.repo, options.commit, wanted);
  // Stored before any link is made (a blob held by several paths, once).
  const stored = new Set<string>();
  for (const entry of regular) {
    const key = keyOf(entry);
    const bytes = contents.get(entry.oid);
    if (bytes && !stored.has(`${key.oid}.${key.executable}`)) {
      await storeBlob(store, key, bytes);
      stored.add(`${key.oid}.${key.executable}`);
    }
  }
  const CONCURRENCY = 64;
  let next = 0;
  const worker = async () => {
    while (next < regular.length) {
      const entry = regular[next++] as StagedEntry;
      // The store's copy was removed since the check (a `cache clear` beside this run): read it again.
      await placeBlob(store, join(tree, entry.path), keyOf(entry), async () => {
        const again = await readBlobs(mirror, options.repo, options.commit, new Map([[entry.oid, entry.path]]));
        return again.get(entry.oid) as Buffer;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, regular.length) }, worker));
  for (const entry of links)
    await symlink((contents.get(entry.oid) as Buffer).toString("utf8"), join(tree, entry.path));
}

/**
 * The contents of blobs of a mirror by id (`git cat-file --batch`, one process for all),
 * `wanted` mapping each id to a path that holds it (for the error when the mirror lacks it).
 */
async function readBlobs(
  mirror: Mirror,
  repo: string,
  commit: string,
  wanted: ReadonlyMap<string, string>,
): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  if (wanted.size === 0) return result;
  const output = await runGitWithInput(
    ["--git-dir", mirror.gitDir, "cat-file", "--batch"],
    mirror,
    `${[...wanted.keys()].join("\n")}\n`,
  );
  // `<oid> blob <size>\n<bytes>\n` per object, or `<oid> missing\n`.
  let at = 0;
  while (at < output.length) {
    const end = output.indexOf(10, at);
    const header = output.subarray(at, end).toString("latin1").split(" ");
    const oid = header[0] as string;
    if (header[1] === "missing") {
      throw new WorkspaceError(
        "partial-mirror",
        `${repo}@${commit.slice(0, 12)}: the mirror ${mirror.path} lacks the contents of ${wanted.get(oid) ?? oid} (a partial mirror; loclab mirrors check --repos <dir> lists every instance it affects)`,
      );
    }
    const size = Number(header[2]);
    result.set(oid, Buffer.from(output.subarray(end + 1, end + 1 + size)));
    at = end + 1 + size + 1;
  }
  return result;
}

/** The index of `commit` read into a temporary index file: its staged entries (for `checkoutFromBlobs`). */
export async function stagedEntriesOf(mirror: Mirror, commit: string, indexFile: string, cwd: string) {
  const env = { GIT_INDEX_FILE: indexFile };
  const git = (args: string[]) => runGit(["--git-dir", mirror.gitDir, ...args], { cwd, safeDirectory: "*", env });
  await git(["read-tree", commit]);
  const stage = (await git(["ls-files", "--stage", "-z"])).stdout;
  return { stage, entries: parseStagedEntries(stage) };
}

/** The attributes with which git changes a file's bytes on checkout. */
const CONVERTING_ATTRIBUTES = ["text", "eol", "crlf", "ident", "filter", "working-tree-encoding"];

/**
 * The paths whose checkout is not their blob's bytes: those with a converting attribute set
 * or unset (`git check-attr --cached`, reading the index's `.gitattributes` as checkout does),
 * or "all" when the mirror's own config converts every text file (`core.autocrlf`, `core.eol`).
 * No `.gitattributes` in the index and no `info/attributes` in the mirror: none, without asking git.
 */
async function pathsGitConverts(
  mirror: Mirror,
  indexFile: string,
  tree: string,
  entries: readonly StagedEntry[],
): Promise<Set<string> | "all"> {
  const config = await runGit(["--git-dir", mirror.gitDir, "config", "--get-regexp", "^core\\.(autocrlf|eol)$"], {
    cwd: mirror.path,
    safeDirectory: "*",
    allowFailure: true,
  });
  if (/^core\.autocrlf (true|input)$|^core\.eol crlf$/m.test(config.stdout)) return "all";
  const hasAttributes =
    entries.some((entry) => entry.path === ".gitattributes" || entry.path.endsWith("/.gitattributes")) ||
    existsSync(join(mirror.gitDir, "info", "attributes"));
  if (!hasAttributes) return new Set();
  const output = await runGitWithInput(
    [
      "--git-dir",
      mirror.gitDir,
      "--work-tree",
      tree,
      "check-attr",
      "--cached",
      "--stdin",
      "-z",
      ...CONVERTING_ATTRIBUTES,
    ],
    mirror,
    `${entries.map((entry) => entry.path).join("\0")}\0`,
    { GIT_INDEX_FILE: indexFile },
  );
  // `<path>\0<attribute>\0<value>\0` per path and attribute.
  const fields = output.toString("utf8").split("\0");
  const converted = new Set<string>();
  for (let at = 0; at + 2 < fields.length; at += 3)
    if (fields[at + 2] !== "unspecified") converted.add(fields[at] as string);
  return converted;
}

/** Runs git with `input` on its standard input; its standard output as bytes. */
async function runGitWithInput(
  args: readonly string[],
  mirror: Mirror,
  input: string,
  env: Record<string, string> = {},
): Promise<Buffer> {
  const child = spawn("git", ["-c", "safe.directory=*", ...args], {
    cwd: mirror.path,
    env: gitEnvironment(env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const chunks: Buffer[] = [];
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? -1));
  });
  child.stdin.end(input);
  const code = await exited;
  if (code !== 0)
    throw new WorkspaceError(
      "git-failed",
      `git ${args.filter((arg) => !arg.startsWith("/")).join(" ")} failed in ${mirror.path}: ${stderr.trim().split("\n")[0]}`,
    );
  return Buffer.concat(chunks);
}

/** Files git wrote itself made read-only as the store's are (0444, or 0555 when executable). */
async function makeReadOnly(tree: string, entries: readonly StagedEntry[]): Promise<void> {
  for (const entry of entries)
    if (entry.mode === "100644" || entry.mode === "100755")
      await chmod(join(tree, entry.path), entry.mode === "100755" ? 0o555 : 0o444);
}
