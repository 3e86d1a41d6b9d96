import type Docker from "dockerode";
import { demultiplex, demultiplexStreams } from "./demultiplex.js";

export interface ExecOptions {
  workdir?: string;
  user?: string;
  env?: readonly string[];
  /** Stop waiting after this long and kill the container (the instance is over anyway). */
  timeoutMs?: number;
}

export interface ExecResult {
  /** null when the command was cut by the time limit or its container died. */
  exitCode: number | null;
  /** stdout and stderr, merged in order. */
  output: string;
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
  const { exec, stream, chunks, ended } = await startExec(container, cmd, options);
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
    (stream as unknown as { destroy?: () => void }).destroy?.();
  }
  const output = demultiplex(Buffer.concat(chunks)).toString("utf8");
  if (timedOut) return { exitCode: null, output, timedOut };
  const info = await exec.inspect().catch(() => undefined);
  return { exitCode: info?.ExitCode ?? null, output, timedOut: false };
}

/** An exec's stdout and stderr apart, as bytes, and its exit code. */
export interface SplitExecResult {
  exitCode: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Runs a command in a running container and waits for it, with stdout and stderr kept apart
 * (the fixer's tools report them apart) and no time limit: the caller bounds the command itself
 * (the fixer's sandbox runs it under GNU `timeout`).
 */
export async function execSplit(
  container: Docker.Container,
  cmd: readonly string[],
  options: Omit<ExecOptions, "timeoutMs"> = {},
): Promise<SplitExecResult> {
  const { exec, chunks, ended } = await startExec(container, cmd, options);
  await ended;
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? null, ...demultiplexStreams(Buffer.concat(chunks)) };
}

/** Starts an exec attached to stdout and stderr, collecting its multiplexed output until it ends. */
async function startExec(container: Docker.Container, cmd: readonly string[], options: ExecOptions) {
  const exec = await container.exec({
    Cmd: [...cmd],
    AttachStdout: true,
    AttachStderr: true,
    ...(options.workdir ? { WorkingDir: options.workdir } : {}),
    ...(options.user ? { User: options.user } : {}),
    ...(options.env ? { Env: [...options.env] } : {}),
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => {
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
    stream.on("error", () => resolve());
  });
  return { exec, stream, chunks, ended };
}
