import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, link, lstat, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { processAlive } from "./process-alive.js";

/**
 * The folder of a workspace cache that holds each file's contents once (issue 53): trees at
 * every commit and shuffled copies are hard links to it, so a file unchanged between two
 * commits takes its disk blocks once however many trees hold it (as git's object store does).
 */
export const BLOB_FOLDER = "blobs";

/**
 * A file's contents as the store knows them: git's blob id (sha-1 of `blob <size>\0` and the
 * bytes, the id `git ls-files --stage` gives) and whether it is executable. Hard links share
 * one inode and so one mode: an executable and a plain copy of the same bytes are two blobs.
 */
export interface BlobKey {
  oid: string;
  executable: boolean;
}

/** How `placeBlob` put a file in place. */
export type BlobPlacement = "linked" | "stored" | "copied";

/** Git's blob id of some bytes (what `git hash-object` prints). */
export function gitBlobId(content: Uint8Array): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** Where a blob lives in the store: `<store>/<2 hex>/<oid>.<x|r>`. */
export function blobPath(store: string, key: BlobKey): string {
  return join(store, key.oid.slice(0, 2), `${key.oid}.${key.executable ? "x" : "r"}`);
}

/** Whether the store holds a blob (a later `placeBlob` may still find it gone: see there). */
export function hasBlob(store: string, key: BlobKey): boolean {
  return existsSync(blobPath(store, key));
}

/**
 * Writes a blob into the store (read-only: 0444, or 0555 when executable), through a
 * temporary file renamed into place, so that a crash never leaves a torn blob and two
 * processes storing the same blob both end with one whole file.
 */
export async function storeBlob(store: string, key: BlobKey, content: Uint8Array): Promise<void> {
  const path = blobPath(store, key);
  const folder = join(path, "..");
  await mkdir(folder, { recursive: true });
  const temporary = join(folder, `.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  await writeFile(temporary, content, { mode: 0o600 });
  await chmod(temporary, key.executable ? 0o555 : 0o444);
  await rename(temporary, path);
}

/**
 * Puts a file with the blob's contents at `target` (which must not exist): a hard link to the
 * store's copy, storing it first when the store lacks it. `content` is asked for only then.
 * A store emptied under our feet (`collectBlobGarbage` of a `cache clear` racing this) costs
 * one more store; a blob at the file system's link limit (EMLINK: ext4 allows 65,000 links,
 * which Lite's empty `__init__.py` files can pass) or a store that cannot be linked to
 * (another file system, no permission) gets a plain copy, so the tree is always whole.
 */
export async function placeBlob(
  store: string,
  target: string,
  key: BlobKey,
  content: () => Uint8Array | Promise<Uint8Array>,
): Promise<BlobPlacement> {
  const path = blobPath(store, key);
  let stored = false;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await link(path, target);
      return stored ? "stored" : "linked";
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || attempt === 1) {
        if (code === "EEXIST") throw error;
        break;
      }
      await storeBlob(store, key, await content());
      stored = true;
    }
  }
  await writeFile(target, await content(), { mode: 0o600, flag: "wx" });
  await chmod(target, key.executable ? 0o555 : 0o444);
  return "copied";
}

/** What `collectBlobGarbage` removed. */
export interface BlobGarbage {
  blobs: number;
  /** Their apparent size. */
  bytes: number;
  /** Disk blocks freed, in bytes. */
  diskBytes: number;
}

/**
 * Removes the blobs no tree links to any more (link count 1: only the store holds them) and
 * temporary files of processes that are gone. Safe beside a live run: a tree being
 * materialized holds a link to every blob it has placed (so those are kept), and one that
 * meets a blob removed between its check and its link stores it again (`placeBlob`).
 */
export async function collectBlobGarbage(store: string): Promise<BlobGarbage> {
  const garbage: BlobGarbage = { blobs: 0, bytes: 0, diskBytes: 0 };
  if (!existsSync(store)) return garbage;
  for (const shard of await readdir(store, { withFileTypes: true })) {
    if (!shard.isDirectory()) continue;
    const folder = join(store, shard.name);
    for (const name of await readdir(folder)) {
      const path = join(folder, name);
      const stats = await lstat(path).catch(() => undefined);
      if (!stats) continue;
      const temporary = /^\.tmp-(\d+)-/.exec(name);
      if (temporary ? !processAlive(Number(temporary[1])) : stats.nlink === 1) {
        await rm(path, { force: true });
        if (!temporary) {
          garbage.blobs += 1;
          garbage.bytes += stats.size;
        }
        garbage.diskBytes += stats.blocks * 512;
      }
    }
    if ((await readdir(folder)).length === 0) await rm(folder, { recursive: true, force: true });
  }
  // An empty store goes too (a run storing a blob makes it again).
  if ((await readdir(store)).length === 0) await rm(store, { recursive: true, force: true });
  return garbage;
}
