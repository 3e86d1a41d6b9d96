import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Provenance } from "@loclab/schemas";

const own = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

/** The CLI's own version, from its package.json. */
export const cliVersion: string = own.version;

/**
 * Provenance for an artifact written now: tool, version, git revision of the working
 * directory's checkout (when there is one; `-dirty` when it has uncommitted changes) and
 * the inputs that shaped it.
 */
export function provenanceNow(inputs: Record<string, unknown>): Provenance {
  const gitRevision = currentGitRevision();
  return {
    tool: "loclab",
    toolVersion: cliVersion,
    ...(gitRevision ? { gitRevision } : {}),
    createdAt: new Date().toISOString(),
    inputs,
  };
}

function currentGitRevision(): string | undefined {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return dirty ? `${head}-dirty` : head;
  } catch {
    return undefined;
  }
}
