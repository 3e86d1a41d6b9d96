/** One command's result in the sandbox, its streams whole (the tools cut them). */
export interface CommandResult {
  stdout: string;
  stderr: string;
  /** null when the command did not exit by itself (timed out, cancelled). */
  exitCode: number | null;
  /** The command's own limit ran out: its process group was killed. */
  timedOut: boolean;
  /** The caller's signal (the supervisor's wall budget) stopped it: its process group was killed. */
  cancelled: boolean;
  ms: number;
}

/** A file the sandbox cannot read or write as text: missing, a directory, binary. The message is the tool's answer. */
export class SandboxFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: "missing" | "directory" | "binary" | "failed",
    message: string,
  ) {
    super(message);
    this.name = "SandboxFileError";
  }
}

/**
 * Where the fixer works: the task's repository at its base commit in `workdir`, commands run
 * by bash there. The fixer's tools are written against this interface; `ContainerSandbox` is
 * the real one (the task's instance image, no network).
 */
export interface Sandbox {
  /** The repository's directory (the harness's /testbed). */
  readonly workdir: string;
  /** Runs `command` with bash in `workdir`; its whole process group is killed at `timeoutMs` or when `signal` aborts. */
  run(command: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CommandResult>;
  /** A text file, relative to `workdir` or absolute. */
  readFile(path: string): Promise<string>;
  /** Writes a text file (its directory made when missing). */
  writeFile(path: string, content: string): Promise<void>;
  /** The repository's changes against its base commit, new files included, as a patch `git apply` takes. */
  diff(): Promise<string>;
}
