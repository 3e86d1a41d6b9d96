import { WorkspaceError } from "./tool-error.js";

/**
 * The environment git runs in: the caller's, without any `GIT_*` variable (a GIT_DIR or
 * GIT_INDEX_FILE inherited from a hook must not redirect us), and without the user's and
 * the system's git configuration, so that no filter, hook path, `core.autocrlf` or
 * credential helper of this machine changes what a checkout contains. Never prompts.
 */
export function gitEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith("GIT_") && value !== undefined) env[key] = value;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
    ...extra,
  };
}

export interface GitResult {
  stdout: string;
  exitCode: number;
}

/**
 * Runs `git` (no shell: the arguments go to the program as they are) and returns its
 * output. `-c safe.directory=<dir>` lets git read a mirror owned by another user. A non-zero
 * exit throws a `WorkspaceError("git-failed")` naming the command and git's message, unless
 * `allowFailure` is set (then the exit code is returned).
 */
export async function runGit(
  args: readonly string[],
  options: { cwd: string; safeDirectory?: string; env?: Record<string, string>; allowFailure?: boolean },
): Promise<GitResult> {
  // execa is imported on first use: the tools' other users (a search in a materialized tree)
  // should not pay for loading it at start-up.
  const { ExecaError, execa } = await import("execa");
  const fullArgs = [...(options.safeDirectory ? ["-c", `safe.directory=${options.safeDirectory}`] : []), ...args];
  try {
    const result = await execa("git", fullArgs, {
      cwd: options.cwd,
      env: gitEnvironment(options.env ?? {}),
      extendEnv: false,
      stdin: "ignore",
      stripFinalNewline: false,
      reject: !options.allowFailure,
    });
    return { stdout: result.stdout, exitCode: result.exitCode ?? 0 };
  } catch (error) {
    if (error instanceof ExecaError) {
      const message =
        String(error.stderr ?? "")
          .trim()
          .split("\n")[0] || error.shortMessage;
      throw new WorkspaceError("git-failed", `git ${args.join(" ")} failed in ${options.cwd}: ${message}`);
    }
    throw error;
  }
}
