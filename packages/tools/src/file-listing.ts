import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { runGit } from "./git.js";
import { WorkspaceError } from "./tool-error.js";

/** A file of a workspace: a regular file or a symbolic link (git tracks both). */
export interface FileEntry {
  /** Repository-relative, `/`-separated. */
  path: string;
  kind: "file" | "symlink";
}

/**
 * The order every tool lists paths in: by UTF-16 code units of the repository-relative path
 * (`"B" < "a"`, `"a/b" < "a0"`), the same on every machine and locale.
 */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every regular file and symbolic link under `root`, found by walking the folders (symbolic
 * links to folders are listed as links, never followed; `.git` folders and files are
 * skipped; sockets and devices are ignored). Sorted by `comparePaths`.
 */
export async function walkFiles(root: string): Promise<FileEntry[]> {
  const files: FileEntry[] = [];
  const pending: string[] = [""];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const at = folder === "" ? root : join(root, folder);
    const entries = await readdir(at, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      throw new WorkspaceError(
        "not-a-directory",
        `cannot list ${at} (${error.code ?? error.message}) while walking ${root}: is it a repository checkout?`,
      );
    });
    for (const entry of entries) {
      if (entry.name === ".git") continue;
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) files.push({ path, kind: "file" });
      else if (entry.isSymbolicLink()) files.push({ path, kind: "symlink" });
    }
  }
  return files.sort((a, b) => comparePaths(a.path, b.path));
}

/**
 * The files git tracks in the index of a working tree (`git ls-files --stage -z`): regular
 * files and symbolic links; submodules (mode 160000) are left out. Sorted by `comparePaths`.
 */
export async function gitIndexFiles(
  root: string,
  options: { env?: Record<string, string>; safeDirectory?: string } = {},
): Promise<FileEntry[]> {
  const { stdout } = await runGit(["ls-files", "--stage", "-z"], { cwd: root, ...options });
  return parseLsFilesStage(stdout);
}

/** Parses `git ls-files --stage -z` (`<mode> <object> <stage>\t<path>\0`), one entry per path. */
export function parseLsFilesStage(output: string): FileEntry[] {
  const seen = new Map<string, FileEntry>();
  for (const record of output.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const mode = record.slice(0, record.indexOf(" "));
    const path = record.slice(tab + 1);
    if (mode === "160000") continue;
    seen.set(path, { path, kind: mode === "120000" ? "symlink" : "file" });
  }
  return [...seen.values()].sort((a, b) => comparePaths(a.path, b.path));
}
