// Installs the npm dependencies on first use, and again whenever package-lock.json changes,
// then builds the packages (turbo caches unchanged ones). Called by `npm test` and
// `npm run reproduce`, so that both work on a fresh clone with nothing installed.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, run, step } from "./run.mjs";

// npm writes node_modules/.package-lock.json on every install: if it is older than
// package-lock.json, the lock changed since (a pull, a checkout) and the install is stale.
function installIsCurrent() {
  const hidden = join(repoRoot, "node_modules", ".package-lock.json");
  if (!existsSync(hidden)) return false;
  return statSync(hidden).mtimeMs >= statSync(join(repoRoot, "package-lock.json")).mtimeMs;
}

export function ensureNodeDependencies() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 11)) {
    throw new Error(`loclab needs Node.js 20.11 or newer; this is ${process.versions.node}`);
  }
  if (!installIsCurrent()) {
    step("installing npm dependencies (npm ci)");
    run("npm", ["ci", "--no-audit", "--no-fund"]);
  }
}

export function buildPackages() {
  step("building packages (turbo run build)");
  run("npx", ["turbo", "run", "build", "--log-prefix=none", "--output-logs=errors-only"], {
    env: { TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" },
  });
}
