import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import {
  execSplit,
  removeLabelledContainers,
  type SplitExecResult,
  tarArchive,
  watchWritableLayer,
} from "@loclab/docker";
import type Docker from "dockerode";
import { DEFAULT_SANDBOX_LIMITS, DISK_POLL_MS, type SandboxLimits } from "./sandbox-limits.js";
import {
  DIFF_SCRIPT,
  KILL_GROUP_SCRIPT,
  READ_FILE_SCRIPT,
  READ_LINES_SCRIPT,
  RUN_SCRIPT,
  WRITE_FILE_SCRIPT,
} from "./sandbox-scripts.js";
import { countersSince, parseSweep, SWEEP_SCRIPT, type SandboxCounters, type SweepReading } from "./sandbox-sweep.js";
import {
  type CommandResult,
  type FileLines,
  READ_FILE_MAX_BYTES,
  type Sandbox,
  type SandboxDiff,
  SandboxFileError,
} from "./sandbox.js";

/** Every fixer container carries this label (its value: the attempt), so leftovers can be found and removed. */
export const FIXER_CONTAINER_LABEL = "loclab.fixer";

/** A container that could not be made into a sandbox (no such image, exited at once, no repository): the attempt's infrastructure failed. */
export class SandboxStartError extends Error {
  constructor(
    readonly image: string,
    message: string,
  ) {
    super(`sandbox from ${image}: ${message}`);
    this.name = "SandboxStartError";
  }
}

export interface ContainerSandboxOptions {
  /** The task's instance image (loclab's local one, or SWE-bench's prebuilt). */
  image: string;
  /** The repository inside; default /testbed, the harness's. */
  workdir?: string;
  /** The label FIXER_CONTAINER_LABEL's value: the attempt, so that a later session can remove what a killed one left. */
  attempt: string;
  /** More labels (the run, the instance). */
  labels?: Record<string, string>;
  /** The container's limits; each field not given takes DEFAULT_SANDBOX_LIMITS'. */
  limits?: Partial<SandboxLimits>;
}

/** "the container exited (code N) before its first command" when it is no longer running; undefined when it is (or cannot be inspected). */
async function exitedAtOnce(container: Docker.Container): Promise<string | undefined> {
  const state = await container
    .inspect()
    .then((info) => info.State)
    .catch(() => undefined);
  if (!state || state.Running) return undefined;
  return `the container exited (code ${state.ExitCode}) before its first command`;
}

/** How long after a command's own limit the host stops waiting and kills its group itself. */
const HOST_GRACE_MS = 15_000;

/** The Docker resource settings of a sandbox's limits (memory with no swap beyond it). */
export function sandboxHostConfig(limits: SandboxLimits): Docker.HostConfig {
  return {
    NetworkMode: "none",
    // Docker's tini as PID 1: it reaps what the sweep kills, so zombies never hold the process limit.
    Init: true,
    PidsLimit: limits.processes,
    Memory: limits.memoryMiB * 2 ** 20,
    MemorySwap: limits.memoryMiB * 2 ** 20,
    NanoCpus: Math.round(limits.cpus * 1e9),
    // The disk limit is watched through the engine (writable-layer.ts): `StorageOpt: { size }`
    // needs overlay2 on xfs with project quotas, which most hosts (ext4) have not.
  };
}

/**
 * The fixer's sandbox in a container of the task's image, with no network (`NetworkMode:
 * none`) and the limits of `SandboxLimits` (processes, memory, CPU): kept alive by `sleep
 * infinity` under Docker's init, every tool one `docker exec` whose output is read as a stream
 * and kept only up to `keepBytes` per stream. A command runs under GNU `timeout`, which signals
 * its whole process group at the limit (TERM, then KILL 5 s later); after it, the sweep
 * (sandbox-sweep.ts) ends whatever it left running and reads which limits it met. Files are
 * read in windows (`readLines`) or whole up to a size, and written through a temporary file
 * (`putArchive`, then `cat >`, which keeps the target's mode). The diff is taken with a
 * temporary index, so the repository's own index is never touched.
 */
export class ContainerSandbox implements Sandbox {
  private counters: SandboxCounters = { memory: 0, processes: 0, cpuThrottledUs: 0 };
  private keeper = "";

  /** The keeper's pid (init's child, `sleep infinity`): what the sweep spares besides init. */
  get keeperPid(): string {
    return this.keeper;
  }

  private constructor(
    readonly container: Docker.Container,
    readonly image: string,
    readonly workdir: string,
    readonly limits: SandboxLimits,
  ) {}

  static async start(docker: Docker, options: ContainerSandboxOptions): Promise<ContainerSandbox> {
    const workdir = options.workdir ?? "/testbed";
    const limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
    let container: Docker.Container;
    try {
      container = await docker.createContainer({
        Image: options.image,
        Cmd: ["sleep", "infinity"],
        WorkingDir: workdir,
        Labels: { ...options.labels, [FIXER_CONTAINER_LABEL]: options.attempt },
        HostConfig: sandboxHostConfig(limits),
      });
    } catch (error) {
      throw new SandboxStartError(options.image, (error as Error).message);
    }
    const sandbox = new ContainerSandbox(container, options.image, workdir, limits);
    try {
      await container.start();
      const head = await sandbox.exec(["git", "-C", workdir, "rev-parse", "HEAD"]).catch(async (error: Error) => {
        throw new SandboxStartError(options.image, (await exitedAtOnce(container)) ?? error.message);
      });
      if (head.exitCode !== 0)
        throw new SandboxStartError(
          options.image,
          // A container whose entry point exits makes the exec fail with whatever the engine
          // says at that moment ("not running", "deleted state"…): its own state says it plainly.
          (await exitedAtOnce(container)) ??
            `no git repository at ${workdir}: ${(head.stderr || head.stdout).trim() || `exit ${head.exitCode}`}`,
        );
      // The keeper is init's child; the first sweep reads the counters every command is measured from.
      sandbox.keeper = (await sandbox.exec(["cat", "/proc/1/task/1/children"])).stdout.trim().split(/\s+/)[0] ?? "";
      sandbox.counters = (await sandbox.sweep()).counters;
    } catch (error) {
      await sandbox.remove();
      if (error instanceof SandboxStartError) throw error;
      throw new SandboxStartError(options.image, (error as Error).message);
    }
    return sandbox;
  }

  async run(command: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CommandResult> {
    const started = Date.now();
    const groupFile = `/tmp/loclab-run-${randomUUID()}.pgid`;
    const seconds = String(Math.max(options.timeoutMs, 1) / 1000);
    let cancelled = false;
    let hostKilled = false;
    const killGroup = () =>
      this.exec(["bash", "-c", KILL_GROUP_SCRIPT, "loclab-kill", groupFile]).catch(() => undefined);
    const onAbort = () => {
      cancelled = true;
      void killGroup();
    };
    if (options.signal?.aborted)
      return {
        stdout: "",
        stderr: "",
        stdoutDroppedBytes: 0,
        stderrDroppedBytes: 0,
        exitCode: null,
        timedOut: false,
        cancelled: true,
        ms: 0,
      };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const backstop = setTimeout(() => {
      hostKilled = true;
      void killGroup();
    }, options.timeoutMs + HOST_GRACE_MS);
    const layer = watchWritableLayer(this.container, {
      limitBytes: this.limits.diskMiB * 2 ** 20,
      intervalMs: DISK_POLL_MS,
      onOver: () => void killGroup(),
    });
    let disk: Awaited<ReturnType<typeof layer.stop>> | undefined;
    try {
      const result = await execSplit(
        this.container,
        ["bash", "-c", RUN_SCRIPT, "loclab-run", groupFile, seconds, command],
        { workdir: this.workdir, keepBytes: this.limits.keepBytes },
      );
      const ms = Date.now() - started;
      disk = await layer.stop();
      const swept = await this.sweep();
      const hit = countersSince(this.counters, swept.counters);
      this.counters = swept.counters;
      // timeout exits 124 after TERM, 137 after its KILL; a command may exit 124 itself, so the clock decides.
      const timedOut =
        !cancelled && (hostKilled || ((result.exitCode === 124 || result.exitCode === 137) && ms >= options.timeoutMs));
      return {
        stdout: result.stdout.toString("utf8"),
        stderr: result.stderr.toString("utf8"),
        stdoutDroppedBytes: result.stdoutBytes - result.stdout.length,
        stderrDroppedBytes: result.stderrBytes - result.stderr.length,
        exitCode: cancelled || timedOut ? null : result.exitCode,
        timedOut,
        cancelled,
        ms,
        hit,
        ...(swept.left > 0 ? { leftover: { count: swept.left, commands: swept.commands } } : {}),
        ...(disk.over ? { diskOver: { bytes: disk.bytes ?? 0 } } : {}),
      };
    } finally {
      if (!disk) await layer.stop();
      clearTimeout(backstop);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  async readLines(path: string, request: { startLine: number; lines: number; maxBytes: number }): Promise<FileLines> {
    const result = await execSplit(
      this.container,
      [
        "bash",
        "-c",
        READ_LINES_SCRIPT,
        "loclab-read",
        this.resolve(path),
        String(request.startLine),
        String(request.lines),
        String(request.maxBytes),
      ],
      { keepBytes: request.maxBytes + 64 },
    );
    this.fileError(path, result);
    const stdout = result.stdout;
    const newline = stdout.indexOf(10);
    const totalLines = Number(stdout.subarray(0, newline).toString("utf8"));
    const text = stdout.subarray(newline + 1);
    if (text.includes(0)) throw new SandboxFileError(path, "binary", `${path} is a binary file, not text`);
    return { text: text.toString("utf8"), totalLines };
  }

  async readFile(path: string, options: { maxBytes?: number } = {}): Promise<string> {
    const maxBytes = options.maxBytes ?? READ_FILE_MAX_BYTES;
    const result = await execSplit(
      this.container,
      ["bash", "-c", READ_FILE_SCRIPT, "loclab-read", this.resolve(path), String(maxBytes)],
      { keepBytes: maxBytes + 64 },
    );
    if (result.exitCode === 7)
      throw new SandboxFileError(
        path,
        "too-large",
        `${path} is ${Number(result.stdout.toString("utf8").trim()).toLocaleString("en-US")} bytes, over the ${maxBytes.toLocaleString("en-US")} this tool reads whole`,
      );
    this.fileError(path, result);
    if (result.stdout.includes(0)) throw new SandboxFileError(path, "binary", `${path} is a binary file, not text`);
    return result.stdout.toString("utf8");
  }

  async writeFile(path: string, content: string): Promise<void> {
    const target = this.resolve(path);
    const staged = `loclab-write-${randomUUID()}`;
    await this.container.putArchive(await tarArchive([{ name: staged, content }]), { path: "/tmp" });
    const result = await this.exec(["bash", "-c", WRITE_FILE_SCRIPT, "loclab-write", `/tmp/${staged}`, target]);
    if (result.exitCode === 3) throw new SandboxFileError(path, "directory", `${path} is a directory, not a file`);
    if (result.exitCode !== 0)
      throw new SandboxFileError(path, "failed", `cannot write ${path}: ${result.stderr.trim()}`);
  }

  async diff(options: { maxBytes: number; maxBinaryFileBytes: number }): Promise<SandboxDiff> {
    const index = `/tmp/loclab-index-${randomUUID()}`;
    const result = await execSplit(
      this.container,
      ["bash", "-c", DIFF_SCRIPT, "loclab-diff", index, String(options.maxBinaryFileBytes)],
      { workdir: this.workdir, keepBytes: options.maxBytes + 1 },
    );
    const stderr = result.stderr.toString("utf8");
    if (result.exitCode === 5) {
      const oversized = [...stderr.matchAll(/^oversized (\d+) (.*)$/gm)].map((match) => ({
        path: match[2]!,
        bytes: Number(match[1]),
      }));
      return { patch: "", bytes: null, complete: false, oversized };
    }
    if (result.exitCode !== 0) throw new Error(`git diff in ${this.workdir} failed: ${stderr.trim()}`);
    if (result.stdoutBytes > options.maxBytes)
      return { patch: "", bytes: result.stdoutBytes, complete: false, oversized: [] };
    return { patch: result.stdout.toString("utf8"), bytes: result.stdoutBytes, complete: true, oversized: [] };
  }

  /** Stops and removes the container (always; a container already gone is fine). */
  async remove(): Promise<void> {
    await this.container.remove({ force: true }).catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404) throw error;
    });
  }

  /**
   * Ends every process of the container but its init and keeper, now (what a driver of its own,
   * mini-swe-agent's, left when it was stopped); the counters move on past what it cost.
   */
  async endCommands(): Promise<void> {
    this.counters = (await this.sweep()).counters;
  }

  /** Ends what the last command left running and reads the container's counters. */
  private async sweep(): Promise<SweepReading> {
    const result = await this.exec(["bash", "-c", SWEEP_SCRIPT, "loclab-sweep", this.keeper]);
    return parseSweep(result.stdout);
  }

  private fileError(path: string, result: SplitExecResult): void {
    if (result.exitCode === 0) return;
    if (result.exitCode === 3) throw new SandboxFileError(path, "directory", `${path} is a directory, not a file`);
    if (result.exitCode === 4) throw new SandboxFileError(path, "missing", `No such file or directory: ${path}`);
    if (result.exitCode === 5) throw new SandboxFileError(path, "binary", `${path} is a binary file, not text`);
    throw new SandboxFileError(path, "failed", `cannot read ${path}: ${result.stderr.toString("utf8").trim()}`);
  }

  private resolve(path: string): string {
    return posix.resolve(this.workdir, path);
  }

  private async exec(cmd: string[], options: { workdir?: string } = {}) {
    const raw = await execSplit(this.container, cmd, options);
    return { exitCode: raw.exitCode, stdout: raw.stdout.toString("utf8"), stderr: raw.stderr.toString("utf8") };
  }
}

/** Removes the fixer containers a killed run left behind (all, or one attempt's). */
export async function removeLeftoverSandboxes(docker: Docker, attempt?: string): Promise<number> {
  return removeLabelledContainers(docker, attempt ? `${FIXER_CONTAINER_LABEL}=${attempt}` : FIXER_CONTAINER_LABEL);
}
