// Debian packages the tests read as real-world corpora (not runtime dependencies of loclab):
// the source trees of python3-requests, python3-django and python3-sympy are the codebases the
// shuffling control and the tool suite are checked on, ripgrep is the reference that
// search_code is compared with, and git builds the fixture repositories of workspace tests. `npm test` installs them when missing (as root), like Jupyter.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const TEST_CORPUS_PACKAGES = ["python3-requests", "python3-django", "python3-sympy", "ripgrep", "git"];

/** The packages of `names` that dpkg does not report as installed. */
export function missingDebianPackages(names) {
  return names.filter((name) => {
    const result = spawnSync("dpkg-query", ["-W", "-f=${Status}", name], { encoding: "utf8" });
    return result.status !== 0 || !result.stdout.includes("install ok installed");
  });
}

/**
 * Installs the missing packages of `names` with apt-get when running as root; otherwise throws
 * with the exact command to run. `reason` says what they are for, in the message.
 */
export function ensureDebianPackages(names, { reason, log = console.error } = {}) {
  const missing = missingDebianPackages(names);
  if (missing.length === 0) return { installed: [] };
  const command = `apt-get install -y --no-install-recommends ${missing.join(" ")}`;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !existsSync("/usr/bin/apt-get")) {
    throw new Error(
      `Debian packages ${missing.join(", ")} are needed${reason ? ` (${reason})` : ""}. Install them with:\n  sudo apt-get update && sudo ${command}`,
    );
  }
  log(`installing ${missing.join(" ")} with apt-get${reason ? ` (${reason})` : ""}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "--no-install-recommends", ...missing],
  ]) {
    const result = spawnSync("apt-get", args, { stdio: "inherit", env });
    if (result.status !== 0) throw new Error(`"apt-get ${args.join(" ")}" failed with exit code ${result.status}`);
  }
  return { installed: missing };
}
