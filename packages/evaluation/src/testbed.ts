import { runGit } from "@loclab/tools";

/**
 * The repository at `commit` in `dest`, from a local mirror: a one-commit fetch (`--depth 1`)
 * into a fresh repository, checked out detached. The eval script needs the base commit's
 * object (`git checkout <base> <test files>`, `git diff <base>`); the history before it is not
 * needed and would make images large (sympy's is ≈ 200 MB).
 */
export async function checkoutTestbed(mirrorGitDir: string, commit: string, dest: string): Promise<void> {
  await runGit(["init", "-q", dest], { cwd: "/" });
  await runGit(["fetch", "-q", "--depth", "1", mirrorGitDir, commit], { cwd: dest, safeDirectory: "*" });
  await runGit(["-c", "advice.detachedHead=false", "checkout", "-q", commit], { cwd: dest });
}

/** The newest tag reachable from `commit` in the mirror (for setuptools-scm's version), if any. */
export async function nearestTag(mirrorGitDir: string, commit: string): Promise<string | undefined> {
  const result = await runGit(["--git-dir", mirrorGitDir, "describe", "--tags", "--abbrev=0", commit], {
    cwd: "/",
    safeDirectory: "*",
    allowFailure: true,
  });
  const tag = result.stdout.trim();
  return result.exitCode === 0 && tag !== "" ? tag : undefined;
}
