import { createWriteStream, type WriteStream } from "node:fs";
import type Docker from "dockerode";
import { FrameReader, HeadKeeper } from "./bounded-output.js";

/**
 * Bytes of an exec's output kept in memory unless the caller says otherwise: enough for every
 * tool's own cut (run_command shows 5,000 characters of each stream), far below what a flood
 * would cost. The rest is counted, never held.
 */
export const DEFAULT_KEEP_BYTES = 1 << 20;

export interface ExecOptions {
  workdir?: string;
  user?: string;
  env?: readonly string[];
  /** Stop waiting after this long and kill the container (the instance is over anyway). */
  timeoutMs?: number;
  /** Output bytes kept in memory (merged for `execInContainer`, each stream for `execSplit`); default DEFAULT_KEEP_BYTES. */
  keepBytes?: number;
  /**
   * Also write the merged output to this file as it comes, up to `maxBytes` (the evaluation's
   * test log, which grading reads whole): written with the socket paused while the disk catches
   * up, so a flood is bounded by the cap, not by memory.
   */
  logFile?: { path: string; maxBytes: number };
}

export interface ExecResult {
  /** null when the command was cut by the time limit or its container died. */
  exitCode: number | null;
  /** stdout and stderr, merged in order: the first `keepBytes` of it. */
  output: string;
  /** Every byte of output, kept or not. */
  outputBytes: number;
  /** Bytes written to `logFile` (at most its cap). */
  logBytes?: number;
  timedOut: boolean;
}

/**
 * Runs a command in a running container and waits for it: output merged as the harness's
 * `exec_run` gives it. A time limit kills the container (Docker has no way to kill one exec;
 * the harness's `kill -TERM <pid>` from another exec targets a host PID), so what ran until
 * then is kept and `timedOut` says why it ended.
 */
export async function execInContainer(
  container: Docker.Container,
  cmd: readonly string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const merged = new HeadKeeper(options.keepBytes ?? DEFAULT_KEEP_BYTES);
  const log = options.logFile ? new CappedFile(options.logFile.path, options.logFile.maxBytes) : undefined;
  const { exec, stream, ended } = await startExec(container, cmd, options, (_, bytes) => {
    merged.write(bytes);
    if (log && !log.write(bytes)) {
      stream.pause();
      log.onDrain(() => stream.resume());
    }
  });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const limit =
    options.timeoutMs === undefined
      ? new Promise<never>(() => {})
      : new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            timedOut = true;
            resolve();
          }, options.timeoutMs);
        });
  await Promise.race([ended, limit]);
  if (timer) clearTimeout(timer);
  if (timedOut) {
    await container.kill().catch(() => undefined);
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    stream.destroy();
  }
  const logBytes = log ? await log.close() : undefined;
  const kept = merged.result();
  const output = kept.bytes.toString("utf8");
  const base = { output, outputBytes: kept.totalBytes, ...(logBytes !== undefined ? { logBytes } : {}) };
  if (timedOut) return { exitCode: null, ...base, timedOut };
  const info = await exec.inspect().catch(() => undefined);
  return { exitCode: info?.ExitCode ?? null, ...base, timedOut: false };
}

/** An exec's stdout and stderr apart: the first `keepBytes` of each, and each stream's whole size. */
export interface SplitExecResult {
  exitCode: number | null;
  stdout: Buffer;
  stderr: Buffer;
  stdoutBytes: number;
  stderrBytes: number;
}

/**
 * Runs a command in a running container and waits for it, with stdout and stderr kept apart
 * (the fixer's tools report them apart) and no time limit: the caller bounds the command itself
 * (the fixer's sandbox runs it under GNU `timeout`).
 */
export async function execSplit(
  container: Docker.Container,
  cmd: readonly string[],
  options: Omit<ExecOptions, "timeoutMs" | "logFile"> = {},
): Promise<SplitExecResult> {
  const cap = options.keepBytes ?? DEFAULT_KEEP_BYTES;
  const out = new HeadKeeper(cap);
  const err = new HeadKeeper(cap);
  const { exec, ended } = await startExec(container, cmd, options, (stream, bytes) =>
    (stream === 2 ? err : out).write(bytes),
  );
  await ended;
  const info = await exec.inspect();
  const stdout = out.result();
  const stderr = err.result();
  return {
    exitCode: info.ExitCode ?? null,
    stdout: stdout.bytes,
    stderr: stderr.bytes,
    stdoutBytes: stdout.totalBytes,
    stderrBytes: stderr.totalBytes,
  };
}

/** Starts an exec attached to stdout and stderr, each payload piece handed on as it arrives. */
async function startExec(
  container: Docker.Container,
  cmd: readonly string[],
  options: ExecOptions,
  onPayload: (stream: 1 | 2, bytes: Buffer) => void,
) {
  const exec = await container.exec({
    Cmd: [...cmd],
    AttachStdout: true,
    AttachStderr: true,
    ...(options.workdir ? { WorkingDir: options.workdir } : {}),
    ...(options.user ? { User: options.user } : {}),
    ...(options.env ? { Env: [...options.env] } : {}),
  });
  const stream = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadWriteStream & {
    destroy(): void;
  };
  const frames = new FrameReader(onPayload);
  stream.on("data", (chunk: Buffer) => frames.push(chunk));
  const ended = new Promise<void>((resolve) => {
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
    stream.on("error", () => resolve());
  });
  return { exec, stream, ended };
}

/** A file written up to a cap; past it, bytes are counted by the caller's keeper and dropped. */
class CappedFile {
  private readonly file: WriteStream;
  private written = 0;

  constructor(
    path: string,
    private readonly cap: number,
  ) {
    this.file = createWriteStream(path);
    // An error (disk full) surfaces at close; until then writes are dropped, not thrown.
    this.file.on("error", () => undefined);
  }

  /** false when the caller should wait for `onDrain` before more. */
  write(bytes: Buffer): boolean {
    const room = this.cap - this.written;
    if (room <= 0) return true;
    const part = bytes.length <= room ? bytes : bytes.subarray(0, room);
    this.written += part.length;
    return this.file.write(Buffer.from(part));
  }

  onDrain(listener: () => void): void {
    this.file.once("drain", listener);
  }

  async close(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.file.once("error", reject);
      this.file.end(() => resolve());
    });
    return this.written;
  }
}
