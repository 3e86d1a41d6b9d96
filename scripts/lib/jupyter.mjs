// Make sure Debian's Jupyter (the one nbconvert runs with) is installed.
//
// Why Debian's and not pip's: the `python3` on PATH on our machines is a different
// Python without Jupyter, and only the npm registry and Debian mirrors are reachable.
// We therefore always call /usr/bin/jupyter, whose shebang is /usr/bin/python3.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const JUPYTER_BIN = "/usr/bin/jupyter";
export const JUPYTER_PYTHON = "/usr/bin/python3";
export const JUPYTER_APT_PACKAGES = ["jupyter-core", "jupyter-client", "python3-nbclient", "jupyter-nbconvert"];

const APT_INSTALL_ARGS = ["install", "-y", "--no-install-recommends", ...JUPYTER_APT_PACKAGES];
/** The command a non-root user has to run, spelled out in the error message. */
export const JUPYTER_APT_COMMAND = `sudo apt-get update && sudo apt-get ${APT_INSTALL_ARGS.join(" ")}`;

// pydevd (pulled in by ipykernel) prints a "frozen modules" debugger warning on every start.
const QUIET_ENV = { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: "1" };

/**
 * Returns null when nbconvert can execute notebooks, otherwise what is missing.
 * Checks the modules nbconvert --execute needs, not just the `jupyter` launcher.
 */
export function checkJupyter() {
  if (!existsSync(JUPYTER_BIN)) return `${JUPYTER_BIN} not found`;
  const version = spawnSync(JUPYTER_BIN, ["nbconvert", "--version"], { encoding: "utf8", env: QUIET_ENV });
  if (version.status !== 0)
    return `"jupyter nbconvert" does not run: ${(version.stderr || version.error?.message || "").trim()}`;
  const modules = spawnSync(JUPYTER_PYTHON, ["-c", "import nbclient, jupyter_client, nbformat"], {
    encoding: "utf8",
    env: QUIET_ENV,
  });
  if (modules.status !== 0)
    return `nbclient/jupyter_client missing for ${JUPYTER_PYTHON}: ${(modules.stderr || "").trim()}`;
  return null;
}

/**
 * Ensure Jupyter with nbconvert is installed; install it with apt-get when we are root.
 * Throws with the exact apt command otherwise.
 *
 * @returns {{ jupyter: string, nbconvertVersion: string, installed: boolean }}
 *   `installed` is true when this call ran apt-get.
 */
export function ensureJupyter({ log = console.error } = {}) {
  let missing = checkJupyter();
  let installed = false;
  if (missing !== null) {
    const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
    if (!isRoot || !existsSync("/usr/bin/apt-get")) {
      throw new Error(`Jupyter is needed to run notebooks (${missing}). Install it with:\n  ${JUPYTER_APT_COMMAND}`);
    }
    log(`Jupyter missing (${missing}); installing ${JUPYTER_APT_PACKAGES.join(" ")} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    for (const args of [["update"], APT_INSTALL_ARGS]) {
      const result = spawnSync("apt-get", args, { stdio: "inherit", env });
      if (result.status !== 0) throw new Error(`"apt-get ${args.join(" ")}" failed with exit code ${result.status}`);
    }
    installed = true;
    missing = checkJupyter();
    if (missing !== null) throw new Error(`Jupyter still unusable after apt-get install: ${missing}`);
  }
  const version = spawnSync(JUPYTER_BIN, ["nbconvert", "--version"], { encoding: "utf8", env: QUIET_ENV });
  return { jupyter: JUPYTER_BIN, nbconvertVersion: version.stdout.trim(), installed };
}
