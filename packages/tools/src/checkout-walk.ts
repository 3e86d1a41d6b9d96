import type { SkippedEntry, TreeSymlink } from "@loclab/controls";
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";

export interface CheckoutWalk {
  /** Regular files, repository-relative with `/`, sorted. */
  files: string[];
  /** Every folder walked (the root excluded), sorted. */
  directories: string[];
  symlinks: TreeSymlink[];
  skipped: SkippedEntry[];
}

export interface WalkCheckoutOptions {
  /** Folder names not walked, at any depth. */
  skipDirectories: ReadonlySet<string>;
}

/**
 * The entries of a checkout, for repository shuffling (`shuffleRepository`). Symbolic links are never followed
 * while walking (so a link loop cannot make the walk run forever); each is resolved with
 * `realpath` and kept only when it lands inside the checkout, outside skipped folders, and
 * not on a folder that holds the link (see `SkippedEntry` of @loclab/controls for what is
 * left out and why).
 * `repo` must be the checkout's real path (no symbolic link in it).
 */
export async function walkCheckout(repo: string, options: WalkCheckoutOptions): Promise<CheckoutWalk> {
  const walk: CheckoutWalk = { files: [], directories: [], symlinks: [], skipped: [] };
  const pending: string[] = [""];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const entries: Dirent[] = await readdir(join(repo, folder), { withFileTypes: true });
    for (const entry of entries) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (options.skipDirectories.has(entry.name)) {
          walk.skipped.push({ path, reason: "skipped-directory" });
          continue;
        }
        walk.directories.push(path);
        pending.push(path);
      } else if (entry.isFile()) {
        walk.files.push(path);
      } else if (entry.isSymbolicLink()) {
        const link = await resolveLink(repo, folder, path, options.skipDirectories);
        if ("reason" in link) walk.skipped.push(link);
        else walk.symlinks.push(link);
      } else {
        walk.skipped.push({ path, reason: "special-file" });
      }
    }
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  walk.files.sort(order);
  walk.directories.sort(order);
  walk.symlinks.sort((a, b) => order(a.path, b.path));
  walk.skipped.sort((a, b) => order(a.path, b.path));
  return walk;
}

async function resolveLink(
  repo: string,
  folder: string,
  path: string,
  skip: ReadonlySet<string>,
): Promise<TreeSymlink | SkippedEntry> {
  let real: string;
  try {
    real = await realpath(join(repo, path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { path, reason: "symlink-loop" };
    if (code === "ENOENT" || code === "ENOTDIR") return { path, reason: "symlink-dangling" };
    throw error;
  }
  const inside = relative(repo, real);
  if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return { path, reason: "symlink-outside" };
  const target = inside.split(sep).join("/");
  if (target.split("/").some((segment) => skip.has(segment))) return { path, reason: "symlink-to-skipped" };
  const kind = (await stat(real)).isDirectory() ? "directory" : "file";
  if (kind === "directory" && (target === "" || folder === target || folder.startsWith(`${target}/`)))
    return { path, reason: "symlink-loop" };
  return { path, target, targetKind: kind };
}
