import type { SandboxLimits } from "./sandbox-limits.js";
import type { SandboxCounters } from "./sandbox-sweep.js";

/** One command's result in the sandbox: the head of each stream (the tools cut it further) and each stream's whole size. */
export interface CommandResult {
  /** The first bytes of stdout kept (the sandbox's `keepBytes`), as text. */
  stdout: string;
  stderr: string;
  /** Bytes of each stream past the keep cap: counted as they came, never held. */
  stdoutDroppedBytes: number;
  stderrDroppedBytes: number;
  /** null when the command did not exit by itself (timed out, cancelled). */
  exitCode: number | null;
  /** The command's own limit ran out: its process group was killed. */
  timedOut: boolean;
  /** The caller's signal (the supervisor's wall budget) stopped it: its process group was killed. */
  cancelled: boolean;
  ms: number;
  /** The limits the command met (the container's counters' growth over it): OOM kills, refused forks, CPU throttling. */
  hit?: SandboxCounters;
  /** Processes the command left running, ended after it (how many; the first commands). */
  leftover?: { count: number; commands: string[] };
  /** The container's writable layer passed the disk limit during or by the end of the command (its size then, in bytes). */
  diskOver?: { bytes: number };
}

/** A file the sandbox cannot read or write as text: missing, a directory, binary. The message is the tool's answer. */
export class SandboxFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: "missing" | "directory" | "binary" | "too-large" | "failed",
    message: string,
  ) {
    super(message);
    this.name = "SandboxFileError";
  }
}

/** edit_file reads a file whole; past this size it is refused (run_command's sed or a script can still change it). */
export const READ_FILE_MAX_BYTES = 4 * 2 ** 20;

/** A window of a text file: its lines from the one asked for, cut at a byte cap, and the file's line count. */
export interface FileLines {
  text: string;
  /** Lines in the whole file (a last line without a newline counts). */
  totalLines: number;
}

/**
 * The repository's diff, bounded: `complete` false when it was not taken or not kept, because a
 * changed binary file passed its limit (`oversized`, with the sizes; nothing was hashed), or the
 * patch itself passed its limit (`bytes` says how large it was; `patch` is then empty).
 */
export interface SandboxDiff {
  patch: string;
  /** The patch's size in bytes; null when it was not taken (an oversized file). */
  bytes: number | null;
  complete: boolean;
  oversized: { path: string; bytes: number }[];
}

/**
 * Where the fixer works: the task's repository at its base commit in `workdir`, commands run
 * by bash there. The fixer's tools are written against this interface; `ContainerSandbox` is
 * the real one (the task's instance image, no network, limits).
 */
export interface Sandbox {
  /** The repository's directory (the harness's /testbed). */
  readonly workdir: string;
  /** The limits it runs under (named in an observation when a command meets one). */
  readonly limits: SandboxLimits;
  /** Runs `command` with bash in `workdir`; its whole process group is killed at `timeoutMs` or when `signal` aborts. */
  run(command: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CommandResult>;
  /** `lines` lines of a text file from `startLine` (1-based), cut at `maxBytes`: only they are read out. */
  readLines(path: string, request: { startLine: number; lines: number; maxBytes: number }): Promise<FileLines>;
  /** A text file whole, relative to `workdir` or absolute; refused past `maxBytes` (default READ_FILE_MAX_BYTES). */
  readFile(path: string, options?: { maxBytes?: number }): Promise<string>;
  /** Writes a text file (its directory made when missing). */
  writeFile(path: string, content: string): Promise<void>;
  /** The repository's changes against its base commit, new files included, as a patch `git apply` takes; bounded. */
  diff(options: { maxBytes: number; maxBinaryFileBytes: number }): Promise<SandboxDiff>;
}
