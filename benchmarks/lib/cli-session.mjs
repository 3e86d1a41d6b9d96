import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI's entry. */
export const loclabBin = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "packages", "cli", "dist", "bin.js");

/**
 * One `loclab` session in a child process, killed with SIGKILL after `killAfterMs` when given;
 * its stderr handed to `onStderr`. Resolves with its exit code and signal.
 */
export function cliSession(args, { killAfterMs, onStderr } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [loclabBin, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.on("data", (chunk) => onStderr?.(String(chunk)));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}
