import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { runLayout } from "@loclab/schemas";
import type { CarriedFile } from "./attempt-job.js";

/** The folders of a run whose files are shared between attempts (first written wins: content-keyed caches). */
const SHARED = ["localizations", "judgements"] as const;

/**
 * The files of attempt `n` of a key: what begins `attempt-<n>.` in its trajectory folder (its
 * trajectory, a repair attempt's patch, report and outcome), and every file inside such a
 * folder (a repair attempt's `attempt-<n>.eval/` and `attempt-<n>.localizer/`).
 */
export async function attemptFiles(out: string, cell: string, instanceId: string, n: number): Promise<string[]> {
  const dir = runLayout.trajectoryDir(out, cell, instanceId);
  if (!existsSync(dir)) return [];
  const entries = (await readdir(dir, { withFileTypes: true })).filter((entry) =>
    entry.name.startsWith(`attempt-${n}.`),
  );
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Removes what an earlier execution of attempt `n` left in this worker's folder (a job run again here). */
export async function clearAttemptFiles(out: string, cell: string, instanceId: string, n: number): Promise<void> {
  const dir = runLayout.trajectoryDir(out, cell, instanceId);
  if (!existsSync(dir)) return;
  for (const name of await readdir(dir))
    if (name.startsWith(`attempt-${n}.`)) await rm(join(dir, name), { recursive: true, force: true });
}

/** The shared cache files (`localizations/`, `judgements/`) of a run folder not in `shipped`, which it then holds. */
export async function newSharedFiles(out: string, shipped: Set<string>): Promise<string[]> {
  const found: string[] = [];
  for (const folder of SHARED) {
    const dir = join(out, folder);
    if (!existsSync(dir)) continue;
    for (const name of (await readdir(dir)).sort()) {
      if (name.endsWith(".tmp") || name.includes(".tmp-")) continue;
      // A localizer stage's trajectory grows while the stage runs; it is complete once the
      // stage's result (`<key>.json`, written last and atomically) is there.
      if (name.endsWith(".traj.jsonl") && !existsSync(join(dir, `${name.slice(0, -".traj.jsonl".length)}.json`)))
        continue;
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
