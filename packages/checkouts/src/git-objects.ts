import { execa } from "execa";
import { gitEnvironment, runGit } from "@loclab/tools";

/** One entry of a commit's tree (`git ls-tree -r`): a file, a symbolic link or a submodule. */
export interface TreeEntry {
  path: string;
  /** `100644`, `100755`, `120000` (link), `160000` (submodule). */
  mode: string;
  type: "blob" | "commit";
  oid: string;
}

/** A mirror as git sees it: the folder, and its git directory (the folder itself when bare). */
export interface MirrorRef {
  path: string;
  gitDir: string;
}

/**
 * Every entry of `commit`'s tree, recursively (`git ls-tree -r -z --full-tree`): files, links
 * and submodules, with their object ids. Throws `WorkspaceError("git-failed")` when the commit
 * or its trees are missing.
 */
export async function listTree(mirror: MirrorRef, commit: string): Promise<TreeEntry[]> {
  const { stdout } = await runGit(["--git-dir", mirror.gitDir, "ls-tree", "-r", "-z", "--full-tree", commit], {
    cwd: mirror.path,
    safeDirectory: "*",
  });
  const entries: TreeEntry[] = [];
  for (const record of stdout.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, type, oid] = record.slice(0, tab).split(" ");
    if (type !== "blob" && type !== "commit") continue;
    entries.push({ path: record.slice(tab + 1), mode: mode as string, type, oid: oid as string });
  }
  return entries;
}

/**
 * The contents of objects named by `git cat-file` specs (`<commit>:<path>`, or an object id),
 * read in one `git cat-file --batch` process: undefined for a spec git reports missing (a path
 * not in the tree, or a blob a partial mirror lacks). Binary-safe: the bytes as stored.
 */
export async function readObjects(
  mirror: MirrorRef,
  specs: readonly string[],
): Promise<Map<string, Buffer | undefined>> {
  const result = new Map<string, Buffer | undefined>();
  if (specs.length === 0) return result;
  for (const spec of specs)
    if (spec.includes("\n")) throw new Error(`readObjects: a spec holds a newline: ${JSON.stringify(spec)}`);
  const { stdout } = await execa("git", ["-c", "safe.directory=*", "--git-dir", mirror.gitDir, "cat-file", "--batch"], {
    cwd: mirror.path,
    env: gitEnvironment(),
    extendEnv: false,
    input: `${specs.join("\n")}\n`,
    encoding: "buffer",
    maxBuffer: 2 ** 31 - 1,
    stripFinalNewline: false,
  });
  const out = Buffer.from(stdout);
  let position = 0;
  for (const spec of specs) {
    const end = out.indexOf(0x0a, position);
    if (end < 0) throw new Error(`git cat-file --batch stopped before ${spec}`);
    const header = out.subarray(position, end).toString("utf8");
    position = end + 1;
    const match = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (!match) {
      // `<spec> missing`, `<spec> ambiguous`: nothing follows the header.
      result.set(spec, undefined);
      continue;
    }
    const size = Number(match[2]);
    result.set(spec, match[1] === "blob" ? out.subarray(position, position + size) : undefined);
    position += size + 1;
  }
  return result;
}

/**
 * The object ids among `oids` the mirror cannot read (`git cat-file --batch-check`): what a
 * partial mirror (a shallow or filtered clone, or a snapshot without its large files) lacks.
 */
export async function missingObjects(mirror: MirrorRef, oids: readonly string[]): Promise<Set<string>> {
  const missing = new Set<string>();
  if (oids.length === 0) return missing;
  const { stdout } = await execa(
    "git",
    ["-c", "safe.directory=*", "--git-dir", mirror.gitDir, "cat-file", "--batch-check"],
    {
      cwd: mirror.path,
      env: gitEnvironment(),
      extendEnv: false,
      input: `${oids.join("\n")}\n`,
      maxBuffer: 2 ** 31 - 1,
    },
  );
  for (const line of stdout.split("\n")) if (line.endsWith(" missing")) missing.add(line.slice(0, -" missing".length));
  return missing;
}
