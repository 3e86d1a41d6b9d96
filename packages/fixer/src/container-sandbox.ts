import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import { execSplit, removeLabelledContainers, tarArchive } from "@loclab/docker";
import type Docker from "dockerode";
import { type CommandResult, type Sandbox, SandboxFileError } from "./sandbox.js";

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
  /** Memory limit in MiB; none by default. */
  memoryMiB?: number;
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

/**
 * The fixer's sandbox in a container of the task's image, with no network (`NetworkMode:
 * none`): kept alive by `sleep infinity`, every tool one `docker exec`. A command runs under GNU
 * `timeout`, which makes itself the leader of a new process group and signals the whole group
 * at the limit (TERM, then KILL 5 s later); its group id is kept in a file while it runs, so
 * that the supervisor's cancel (`signal`) kills the group from a second exec.
 * Files are read with `cat` and written through a temporary file (`putArchive`, then `cat >`,
 * which keeps the target's mode). The diff is taken with a temporary index, so the repository's
 * own index is never touched.
 */
export class ContainerSandbox implements Sandbox {
  private constructor(
    readonly container: Docker.Container,
    readonly image: string,
    readonly workdir: string,
  ) {}

  static async start(docker: Docker, options: ContainerSandboxOptions): Promise<ContainerSandbox> {
    const workdir = options.workdir ?? "/testbed";
    let container: Docker.Container;
    try {
      container = await docker.createContainer({
        Image: options.image,
        Cmd: ["sleep", "infinity"],
        WorkingDir: workdir,
        Labels: { ...options.labels, [FIXER_CONTAINER_LABEL]: options.attempt },
        HostConfig: {
          NetworkMode: "none",
          ...(options.memoryMiB ? { Memory: options.memoryMiB * 2 ** 20 } : {}),
        },
      });
    } catch (error) {
      throw new SandboxStartError(options.image, (error as Error).message);
    }
    const sandbox = new ContainerSandbox(container, options.image, workdir);
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
      this.exec(["bash", "-c", 'kill -KILL -- "-$(cat "$1")" 2>/dev/null; true', "loclab-kill", groupFile]).catch(
        () => undefined,
      );
    const onAbort = () => {
      cancelled = true;
      void killGroup();
    };
    if (options.signal?.aborted)
      return { stdout: "", stderr: "", exitCode: null, timedOut: false, cancelled: true, ms: 0 };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const backstop = setTimeout(() => {
      hostKilled = true;
      void killGroup();
    }, options.timeoutMs + HOST_GRACE_MS);
    try {
      const result = await this.exec(
        [
          "bash",
          "-c",
          // timeout runs as a background job so that this shell removes the group file after it
          // (one exec per command); timeout leads its own group, so its pid is the group id.
          'timeout -k 5 "$2" bash -c "$3" & child=$!; echo "$child" > "$1"; wait "$child"; status=$?; rm -f "$1"; exit "$status"',
          "loclab-run",
          groupFile,
          seconds,
          command,
        ],
        { workdir: this.workdir },
      );
      const ms = Date.now() - started;
      // timeout exits 124 after TERM, 137 after its KILL; a command may exit 124 itself, so the clock decides.
      const timedOut =
        !cancelled && (hostKilled || ((result.exitCode === 124 || result.exitCode === 137) && ms >= options.timeoutMs));
      return {
        stdout: result.stdout,
        stderr: result.stderr,
        exitCode: cancelled || timedOut ? null : result.exitCode,
        timedOut,
        cancelled,
        ms,
      };
    } finally {
      clearTimeout(backstop);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  async readFile(path: string): Promise<string> {
    const target = this.resolve(path);
    const result = await execSplit(this.container, [
      "bash",
      "-c",
      'if [ -d "$1" ]; then exit 3; fi; if [ ! -e "$1" ]; then exit 4; fi; exec cat -- "$1"',
      "loclab-read",
      target,
    ]);
    if (result.exitCode === 3) throw new SandboxFileError(path, "directory", `${path} is a directory, not a file`);
    if (result.exitCode === 4) throw new SandboxFileError(path, "missing", `No such file or directory: ${path}`);
    if (result.exitCode !== 0)
      throw new SandboxFileError(path, "failed", `cannot read ${path}: ${result.stderr.toString("utf8").trim()}`);
    if (result.stdout.includes(0)) throw new SandboxFileError(path, "binary", `${path} is a binary file, not text`);
    return result.stdout.toString("utf8");
  }

  async writeFile(path: string, content: string): Promise<void> {
    const target = this.resolve(path);
    const staged = `loclab-write-${randomUUID()}`;
    await this.container.putArchive(await tarArchive([{ name: staged, content }]), { path: "/tmp" });
    const result = await this.exec([
      "bash",
      "-c",
      'if [ -d "$2" ]; then rm -f "$1"; exit 3; fi; mkdir -p -- "$(dirname -- "$2")" && cat "$1" > "$2"; status=$?; rm -f "$1"; exit $status',
      "loclab-write",
      `/tmp/${staged}`,
      target,
    ]);
    if (result.exitCode === 3) throw new SandboxFileError(path, "directory", `${path} is a directory, not a file`);
    if (result.exitCode !== 0)
      throw new SandboxFileError(path, "failed", `cannot write ${path}: ${result.stderr.trim()}`);
  }

  async diff(): Promise<string> {
    const index = `/tmp/loclab-index-${randomUUID()}`;
    const result = await this.exec(
      [
        "bash",
        "-c",
        'export GIT_INDEX_FILE="$1"; git read-tree HEAD && git add -A && git diff --cached --binary HEAD; status=$?; rm -f "$1"; exit $status',
        "loclab-diff",
        index,
      ],
      { workdir: this.workdir },
    );
    if (result.exitCode !== 0) throw new Error(`git diff in ${this.workdir} failed: ${result.stderr.trim()}`);
    return result.stdout;
  }

  /** Stops and removes the container (always; a container already gone is fine). */
  async remove(): Promise<void> {
    await this.container.remove({ force: true }).catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404) throw error;
    });
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
