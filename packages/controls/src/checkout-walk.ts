import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";

/** A symbolic link of the checkout that points inside it. */
export interface CheckoutSymlink {
  /** The link, repository-relative. */
  path: string;
  /** What it resolves to (through every link), repository-relative. */
  target: string;
  targetKind: "file" | "directory";
}

/**
 * An entry of the checkout that is not copied:
 * - `skipped-directory`: a folder on the skip list (`.git`, `__pycache__`);
 * - `symlink-outside`: a link that resolves outside the checkout (never followed: the copy
 *   must not pull in, or point to, files that are not the repository's);
 * - `symlink-to-skipped`: a link into a skipped folder;
 * - `symlink-loop`: a link that cannot be resolved because it loops (`a → b → a`: ELOOP),
 *   or a link to a folder that contains the link itself (`x/up → ..`), which a tree walk
 *   following links would descend forever;
 * - `symlink-dangling`: a link to nothing;
 * - `special-file`: a FIFO, socket or device.
 */
export interface SkippedEntry {
  path: string;
  reason: "skipped-directory" | "symlink-outside" | "symlink-to-skipped" | "symlink-loop" | "symlink-dangling" | "special-file";
}

export interface CheckoutWalk {
  /** Regular files, repository-relative with `/`, sorted. */
  files: string[];
  /** Every folder walked (the root excluded), sorted. */
  directories: string[];
  symlinks: CheckoutSymlink[];
  skipped: SkippedEntry[];
}

export interface WalkCheckoutOptions {
  /** Folder names not walked, at any depth. */
  skipDirectories: ReadonlySet<string>;
}

/**
 * The entries of a checkout, for repository shuffling. Symbolic links are never followed
 * while walking (so a link loop cannot make the walk run forever); each is resolved with
 * `realpath` and kept only when it lands inside the checkout, outside skipped folders, and
 * not on a folder that holds the link (see `SkippedEntry` for what is left out and why).
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

async function resolveLink(repo: string, folder: string, path: string, skip: ReadonlySet<string>): Promise<CheckoutSymlink | SkippedEntry> {
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
  if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return { path, reason: "symlink-outside" };
  const target = inside.split(sep).join("/");
  if (target.split("/").some((segment) => skip.has(segment))) return { path, reason: "symlink-to-skipped" };
  const kind = (await stat(real)).isDirectory() ? "directory" : "file";
  if (kind === "directory" && (target === "" || folder === target || folder.startsWith(`${target}/`))) return { path, reason: "symlink-loop" };
  return { path, target, targetKind: kind };
}
