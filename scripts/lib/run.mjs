// Small process helpers for the repository scripts (plain Node: they run before npm ci).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is scripts/lib/run.mjs). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Runs a command with inherited stdio from the repository root; throws with its exit code. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: repoRoot,
    stdio: "inherit",
    ...options,
    env: { ...process.env, ...options.env },
  });
  if (result.error) throw new Error(`${command} ${args.join(" ")}: ${result.error.message}`);
  if (result.status !== 0) {
    const error = new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
    error.exitCode = result.status ?? 1;
    throw error;
  }
  return result;
}

/** Prints a step heading so that long logs (CI) can be scanned. */
export function step(title) {
  process.stderr.write(`\n== ${title}\n`);
}
