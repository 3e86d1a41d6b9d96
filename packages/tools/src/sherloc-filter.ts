/**
 * The folders and files SHERLOC hides (NVIDIA-NeMo/Skills `recipes/sherloc/inference/sherloc.py`,
 * `exclude_dirs` default): any file or folder, at any depth, whose name is one of these
 * (exactly, case-sensitive) is left out of the tree and of every tool.
 */
export const SHERLOC_EXCLUDE_DIRS: readonly string[] = [
  "test",
  "tests",
  "testing",
  "test_",
  "_test",
  "__pycache__",
  ".git",
  ".github",
  "docs",
  "examples",
  "scripts",
  "tools",
  "venv",
  "env",
  "node_modules",
  "dist",
  "build",
  "target",
  "bin",
  "obj",
  "coverage",
  ".pytest_cache",
  ".tox",
  ".mypy_cache",
  "locale",
  "translations",
  "i18n",
  "l10n",
  "static",
  "assets",
  "media",
  "uploads",
  "logs",
  "tmp",
  "temp",
  "vendor",
  "libs",
  "dependencies",
  "settings",
  "local_settings",
  "fixtures",
  "data",
  "datasets",
  "notebooks",
  "jupyter",
  "ipynb_checkpoints",
  "deploy",
  "deployment",
  "docker",
  "kubernetes",
  "ci",
  "cd",
  "github",
  "gitlab",
  "bitbucket",
  "readme",
  "license",
  "changelog",
  "contributing",
];

/** SHERLOC's `file_extensions` default: an allow-list, not a block-list. */
export const SHERLOC_FILE_EXTENSIONS: readonly string[] = ["py", "cfg"];

export interface SherlocFilterOptions {
  excludeDirs?: readonly string[];
  fileExtensions?: readonly string[];
  /**
   * A path's name in the original repository, for a renamed (shuffled) tree: the filter reads
   * names, so it must read the original ones, or a renamed `tests/` would be shown under the
   * shuffled control and hidden under plain. Default: the path as it is.
   */
  originalPathOf?: (path: string) => string | undefined;
}

/**
 * The repository as SHERLOC's tools see it (`RepoManager.filter_repo_dict`, applied once when a
 * repository is loaded): a path is kept unless one of its names (folders and the file) is an
 * excluded name, or contains a `.` and ends in an extension not allowed, which drops dotted
 * folders (`.github`, `pkg.egg-info`) too and keeps files without an extension (`Makefile`).
 * Folders left empty disappear with their files. Order as given. On a shuffled tree the
 * original names decide (`originalPathOf`), so every control sees the same files.
 */
export function sherlocVisiblePaths(paths: readonly string[], options: SherlocFilterOptions = {}): string[] {
  const excluded = new Set(options.excludeDirs ?? SHERLOC_EXCLUDE_DIRS);
  const extensions = new Set(options.fileExtensions ?? SHERLOC_FILE_EXTENSIONS);
  return paths.filter((path) =>
    (options.originalPathOf?.(path) ?? path).split("/").every((name) => {
      if (excluded.has(name)) return false;
      const dot = name.lastIndexOf(".");
      return dot < 0 || extensions.has(name.slice(dot + 1));
    }),
  );
}
