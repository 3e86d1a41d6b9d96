import { readFileSync, rmSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { processAlive } from "@loclab/tools";

/** The lock file a run holds in its output folder while it writes there. */
export const LOCK_FILE = ".loclab.lock";

interface LockRecord {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
}

export interface RunLock {
  path: string;
  /** Set when a stale lock (its process gone) was taken over: what it said. */
  tookOver?: string;
  release(): Promise<void>;
}

/**
 * Takes `<dir>/.loclab.lock` (created exclusively, holding pid, host, start time and command),
 * so that two runs never append to one output folder. A lock whose process is gone (same host,
 * pid not running) is stale: it is named and taken over. A live lock, or one from another host
 * (which cannot be checked from here), is refused with what it says and how to clear it.
 * The lock is released by `release()` and on exit.
 */
export async function acquireRunLock(dir: string, command: string): Promise<RunLock> {
  const path = join(dir, LOCK_FILE);
  const mine: LockRecord = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), command };
  let tookOver: string | undefined;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(path, `${JSON.stringify(mine)}\n`, { flag: "wx" });
      // Synchronous, so that the same function also runs on exit (a crash, or Ctrl-C handled by the caller).
      const releaseSync = () => {
        try {
          if (readFileSync(path, "utf8").includes(`"pid":${mine.pid},`)) rmSync(path, { force: true });
        } catch {
          // already gone
        }
      };
      const release = async () => {
        process.removeListener("exit", releaseSync);
        releaseSync();
      };
      process.once("exit", releaseSync);
      return { path, ...(tookOver ? { tookOver } : {}), release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const text = await readFile(path, "utf8").catch(() => "");
    let held: Partial<LockRecord> = {};
    try {
      held = JSON.parse(text) as Partial<LockRecord>;
    } catch {
      // an unreadable lock is treated as held by an unknown process
    }
    const who = `pid ${held.pid ?? "?"} on host ${held.host ?? "?"}, since ${held.startedAt ?? "?"}${held.command ? `, ${held.command}` : ""}`;
    const stale = held.host === mine.host && typeof held.pid === "number" && !processAlive(held.pid);
    if (!stale) {
      throw new Error(
        `${dir} is in use by another loclab run (${who}); wait for it to finish, or remove ${path} if that run is gone`,
      );
    }
    tookOver = `a stale lock (${who}; that process is not running) was taken over`;
    await rm(path, { force: true });
  }
  throw new Error(`could not take the lock ${path}`);
}
