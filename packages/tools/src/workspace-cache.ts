import { existsSync } from "node:fs";
import { lstat, readdir, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { processAlive, removeTree } from "./materialize-workspace.js";
import { readManifest } from "./workspace-manifest.js";
import { BLOB_FOLDER, collectBlobGarbage } from "./blob-store.js";

/**
 * The workspace cache every run shares unless its spec names another: `$LOCLAB_WORKSPACE_CACHE`,
 * else `$LOCLAB_CACHE/workspaces`, else `$XDG_CACHE_HOME/loclab/workspaces` (by default
 * `~/.cache/loclab/workspaces`): outside every run folder, so a tree is materialized once per
 * commit for all runs, and deleting a run never touches it.
 */
export function defaultWorkspaceCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOCLAB_WORKSPACE_CACHE) return resolve(env.LOCLAB_WORKSPACE_CACHE);
  const base = env.LOCLAB_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "loclab");
  return resolve(base, "workspaces");
}

/** One entry of the workspace cache. */
export interface CachedWorkspace {
  /**
   * `tree`: a materialized checkout; `shuffled`: a shuffled copy of one (with its mapping beside
   * it); `facts`: the Python facts shuffles keep by file content, for every repository
   * (`SHUFFLE_FACTS_FOLDER`; its `repo` and `commit` are empty); `blobs`: the contents the
   * trees and copies hard-link to (`BLOB_FOLDER`), each file once.
   */
  kind: "tree" | "shuffled" | "facts" | "blobs";
  /** `owner/name`. */
  repo: string;
  commit: string;
  /** The shuffling seed of a shuffled copy. */
  seed?: number;
  /** The folder (holding `tree/` and `manifest.json` or `mapping.json`). */
  path: string;
  /** When it was made (a tree's manifest), if known. */
  createdAt?: string;
  /** Regular files and links under it. */
  files: number;
  /** Their size in bytes (apparent size): the logical size, as if no file were shared. */
  bytes: number;
  /**
   * Disk blocks in use, in bytes: the entry's own (what `du` counts for it alone, except that a
   * file hard-linked into the blob store is counted there, once, not in every tree linking
   * to it). The entries' sum is the cache's physical size.
   */
  diskBytes: number;
  /** False for a half-made entry (no manifest or mapping): `clear` removes it. */
  complete: boolean;
}

/** The folder of a workspace cache where shuffles keep parsed Python facts (`pythonFactsStore`). */
export const SHUFFLE_FACTS_FOLDER = "shuffle-facts";

/**
 * Every entry of a workspace cache (`materializeWorkspace`'s trees and the runner's shuffled
 * copies, `<cache>/shuffled/seed-<s>/…`), with its size on disk, sorted by repository, commit
 * and seed. Temporary folders of a materialization in progress are not listed.
 */
export async function listWorkspaceCache(cacheDir: string): Promise<CachedWorkspace[]> {
  const root = resolve(cacheDir);
  if (!existsSync(root)) return [];
  const entries: CachedWorkspace[] = [];
  const scan = async (folder: string, kind: CachedWorkspace["kind"], seed?: number) => {
    for (const repoEntry of await readdir(folder, { withFileTypes: true })) {
      if (!repoEntry.isDirectory() || repoEntry.name === "shuffled" || !repoEntry.name.includes("__")) continue;
      const repo = repoEntry.name.replace("__", "/");
      for (const entry of await readdir(join(folder, repoEntry.name), { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name.startsWith(".tmp-") || entry.name.includes(".tmp-")) continue;
        const path = join(folder, repoEntry.name, entry.name);
        const size = await diskUse(path);
        const createdAt = kind === "tree" ? (await readManifest(path))?.createdAt : undefined;
        const complete = kind === "tree" ? createdAt !== undefined : existsSync(join(path, "mapping.json"));
        entries.push({
          kind,
          repo,
          commit: entry.name,
          ...(seed !== undefined ? { seed } : {}),
          path,
          ...(createdAt ? { createdAt } : {}),
          ...size,
          complete,
        });
      }
    }
  };
  await scan(root, "tree");
  const shuffled = join(root, "shuffled");
  if (existsSync(shuffled)) {
    for (const seedEntry of await readdir(shuffled, { withFileTypes: true })) {
      const match = /^seed-(\d+)$/.exec(seedEntry.name);
      if (seedEntry.isDirectory() && match) await scan(join(shuffled, seedEntry.name), "shuffled", Number(match[1]));
    }
  }
  const facts = join(root, SHUFFLE_FACTS_FOLDER);
  if (existsSync(facts))
    entries.push({ kind: "facts", repo: "", commit: "", path: facts, ...(await diskUse(facts)), complete: true });
  const blobs = join(root, BLOB_FOLDER);
  if (existsSync(blobs))
    entries.push({ kind: "blobs", repo: "", commit: "", path: blobs, ...(await diskUse(blobs, true)), complete: true });
  return entries.sort(
    (a, b) =>
      (a.repo + a.commit + (a.seed ?? -1)).localeCompare(b.repo + b.commit + (b.seed ?? -1)) ||
      a.kind.localeCompare(b.kind),
  );
}

/**
 * Removes entries of a workspace cache: all of them, or those of one repository, or those made
 * more than `olderThanMs` ago (a shuffled copy goes with its tree's age, else its own folder's);
 * half-made entries always go. The shuffles' facts (no repository of their own) go when all
 * is cleared, or by age; a run that meets them gone parses again. Trees made read-only are
 * unlocked first. Then the blob store loses every blob no tree links to any more (reported
 * as one `blobs` entry); a blob a live run's tree links to stays. Runs that use a removed
 * entry must be stopped (a running one materializes it again when needed). Returns what was
 * removed.
 */
export async function clearCachedWorkspaces(
  cacheDir: string,
  options: { repo?: string; olderThanMs?: number; now?: Date } = {},
): Promise<CachedWorkspace[]> {
  const now = (options.now ?? new Date()).getTime();
  const entries = await listWorkspaceCache(cacheDir);
  const treeDates = new Map(
    entries.filter((entry) => entry.kind === "tree").map((entry) => [`${entry.repo}@${entry.commit}`, entry.createdAt]),
  );
  const removed: CachedWorkspace[] = [];
  for (const entry of entries) {
    // The blob store is never removed whole (a live run may be linking to it): what no tree
    // links to any more goes below.
    if (entry.kind === "blobs") continue;
    if (options.repo !== undefined && entry.repo !== options.repo) continue;
    if (entry.complete && options.olderThanMs !== undefined) {
      const made =
        entry.createdAt ??
        treeDates.get(`${entry.repo}@${entry.commit}`) ??
        (await lstat(entry.path)).mtime.toISOString();
      if (now - Date.parse(made) <= options.olderThanMs) continue;
    }
    await removeTree(entry.path);
    removed.push(entry);
  }
  // Leftovers of interrupted work, and folders left empty.
  await sweep(resolve(cacheDir));
  // The contents no tree links to any more: their blocks count as the store's, not as any
  // removed entry's (see `diskBytes`), so what was freed is reported as a blobs entry.
  const store = join(resolve(cacheDir), BLOB_FOLDER);
  if (existsSync(store)) {
    const garbage = await collectBlobGarbage(store);
    if (garbage.blobs > 0)
      removed.push({
        kind: "blobs",
        repo: "",
        commit: "",
        path: store,
        files: garbage.blobs,
        bytes: garbage.bytes,
        diskBytes: garbage.diskBytes,
        complete: true,
      });
  }
  return removed;
}

/**
 * Files, apparent bytes and disk bytes under a folder. A regular file with more than one link
 * is a blob's (blob-store.ts): its blocks are counted only in the store itself (`store`).
 */
async function diskUse(path: string, store = false): Promise<{ files: number; bytes: number; diskBytes: number }> {
  let files = 0;
  let bytes = 0;
  let diskBytes = 0;
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const child = join(folder, entry.name);
      const stats = await lstat(child);
      if (store || !stats.isFile() || stats.nlink === 1) diskBytes += stats.blocks * 512;
      if (entry.isDirectory()) await walk(child);
      else {
        files += 1;
        bytes += stats.size;
      }
    }
  };
  await walk(path);
  // The folder's own blocks, as du counts them.
  diskBytes += (await lstat(path)).blocks * 512;
  return { files, bytes, diskBytes };
}

/** Removes `.tmp-*` folders (and `<commit>.tmp-*` shuffled copies) and empty repository folders under the cache. */
async function sweep(root: string): Promise<void> {
  if (!existsSync(root)) return;
  const visit = async (folder: string, depth: number): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(folder, entry.name);
      if (entry.name.includes(".tmp-")) {
        const pid = /-(\d+)-[0-9a-f]+$/.exec(entry.name)?.[1];
        if (pid === undefined || !processAlive(Number(pid))) await removeTree(path);
        continue;
      }
      if (depth < 3 && !existsSync(join(path, "tree"))) await visit(path, depth + 1);
      if ((await readdir(path)).length === 0) await rm(path, { recursive: true, force: true });
    }
  };
  await visit(root, 0);
}
