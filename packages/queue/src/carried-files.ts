import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { runLayout } from "@loclab/schemas";
import type { CarriedFile } from "./attempt-job.js";

/** The folders of a run whose files are shared between attempts (first written wins: content-keyed caches). */
const SHARED = ["localizations", "judgements"] as const;

/** The files of attempt `n` of a key (its trajectory, outcome, patch…): they begin `attempt-<n>.` in its trajectory folder. */
export async function attemptFiles(out: string, cell: string, instanceId: string, n: number): Promise<string[]> {
  const dir = runLayout.trajectoryDir(out, cell, instanceId);
  if (!existsSync(dir)) return [];
  const names = await readdir(dir);
  return names.filter((name) => name.startsWith(`attempt-${n}.`)).map((name) => join(dir, name));
}

/** Removes what an earlier execution of attempt `n` left in this worker's folder (a job run again here). */
export async function clearAttemptFiles(out: string, cell: string, instanceId: string, n: number): Promise<void> {
  for (const path of await attemptFiles(out, cell, instanceId, n)) await rm(path, { force: true });
}

/** The shared cache files (`localizations/`, `judgements/`) of a run folder not in `shipped`, which it then holds. */
export async function newSharedFiles(out: string, shipped: Set<string>): Promise<string[]> {
  const found: string[] = [];
  for (const folder of SHARED) {
    const dir = join(out, folder);
    if (!existsSync(dir)) continue;
    for (const name of (await readdir(dir)).sort()) {
      if (name.endsWith(".tmp") || name.includes(".tmp-")) continue;
      const path = join(dir, name);
      if (shipped.has(path)) continue;
      shipped.add(path);
      found.push(path);
    }
  }
  return found;
}

/** Files of the run folder `out` as carried on the results stream (UTF-8 when they are, else base64). */
export async function carryFiles(out: string, paths: readonly string[]): Promise<CarriedFile[]> {
  return Promise.all(
    paths.map(async (path) => {
      const bytes = await readFile(path);
      const text = bytes.toString("utf8");
      const rel = relative(out, path).split("\\").join("/");
      return Buffer.byteLength(text) === bytes.length && Buffer.from(text, "utf8").equals(bytes)
        ? { path: rel, utf8: text }
        : { path: rel, base64: bytes.toString("base64") };
    }),
  );
}

/**
 * Writes carried files into the run folder `dir`, each atomically (a temporary file renamed).
 * A shared cache file that exists is left as it is (the first one written is the one attempts used).
 */
export async function placeFiles(dir: string, files: readonly CarriedFile[]): Promise<void> {
  for (const file of files) {
    const path = join(dir, ...file.path.split("/"));
    const shared = SHARED.some((folder) => file.path.startsWith(`${folder}/`));
    if (shared && existsSync(path)) continue;
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.tmp-${process.pid}`;
    await writeFile(temporary, file.utf8 !== undefined ? file.utf8 : Buffer.from(file.base64 ?? "", "base64"));
    await rename(temporary, path);
  }
}
