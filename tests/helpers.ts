import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";

/** The shared data folder the tests read (never copied into the repository). */
export const dataDir = resolveDataDir();

/** Reads a JSON file of the shared data folder. */
export function readSharedJson<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(join(dataDir, relative), "utf8")) as T;
}

/** Reads the rows of a JSONL file of the shared data folder as plain JSON. */
export function readSharedJsonl<T = unknown>(relative: string): T[] {
  return readFileSync(join(dataDir, relative), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}
