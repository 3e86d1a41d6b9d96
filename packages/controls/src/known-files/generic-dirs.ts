/**
 * Top-level folders that hold packages rather than being one (`src/_pytest`, `lib/matplotlib`,
 * `sdk/python/feast`, `crates/foo`): a package root looks one level further down.
 */
export const CONTAINER_DIRS: ReadonlySet<string> = new Set(["src", "lib", "libs", "python", "sdk", "packages", "crates", "source", "sources"]);

/**
 * Folder names too common to stand for one repository: a path under `tests/` or `core/` in an
 * issue is as likely another project's as this one's (`…/numpy/tests/test_utils.py` is not
 * `astropy/utils/tests/test_utils.py`). Compared case-insensitively.
 */
const GENERIC_DIRS: ReadonlySet<string> = new Set([
  "test", "tests", "testing", "doc", "docs", "example", "examples", "benchmark", "benchmarks", "bench",
  "asv_bench", "script", "scripts", "tool", "tools", "build_tools", "ci", "bin", "build", "dist", "docker",
  "changes", "changelog", "changelog.d", "news", "api", "app", "apps", "core", "code", "db", "backend",
  "frontend", "dashboard", "util", "utils", "common", "config", "configs", "data", "misc", "tasks",
  "recipes", "internal", "cmd", "pkg", "vendor", "third_party", "extern", "external", "contrib", "plugins",
  "web", "server", "client", "site-packages", "dist-packages", "usr", "home", "tmp", "var", "opt",
  "src", "lib", "libs", "python", "sdk", "packages", "crates", "source", "sources",
]);

/** A folder name that says nothing about which repository a path belongs to (hidden folders too). */
export function isGenericDir(name: string): boolean {
  return name.startsWith(".") || GENERIC_DIRS.has(name.toLowerCase());
}
