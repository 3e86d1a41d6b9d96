import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
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

/** The built CLI's entry (`npm run build` first; `npx loclab` runs the same file through a shim). */
export const loclabBin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url));

/**
 * Runs the built `loclab` in a child process as a user would, never throwing on a non-zero exit
 * (tests assert the exit code): `loclab("score", "-b", "lite")` or `loclab(["score", "-b", "lite"])`.
 * Progress lines stay on (`LOCLAB_QUIET=0`), so tests see what a user sees.
 */
export function loclab(...args: (string | readonly string[])[]) {
  return loclabWith({})(...args);
}

/** `loclab` with more environment variables or another working folder. */
export function loclabWith(options: { env?: Record<string, string>; cwd?: string }) {
  return (...args: (string | readonly string[])[]) =>
    execa(process.execPath, [loclabBin, ...args.flat()], {
      reject: false,
      env: { LOCLAB_QUIET: "0", ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
}

/** A new empty folder under the system's temporary folder, named with `prefix`. */
export function scratch(prefix = "loclab-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
