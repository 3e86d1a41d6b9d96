import { readFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import type { LaunchedServer } from "./launched-server.js";
import { vllmServeArgs, vllmServeEnv } from "./serve-args.js";
import type { VllmServerSpec } from "./server-spec.js";

export interface ProcessLaunchOptions {
  /** The server's stdout and stderr go here (appended). */
  logFile: string;
  /** The caller's environment, passed through (PATH, HOME, the spec's `secretEnv`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts `vllm serve` as a local process: `CUDA_VISIBLE_DEVICES` from the spec's GPUs, output
 * to a log file, in its own process group (vLLM starts worker processes; stopping signals the
 * whole group), detached so that `loclab vllm up` can exit and leave it serving.
 */
export async function launchProcess(spec: VllmServerSpec, options: ProcessLaunchOptions): Promise<LaunchedServer> {
  if (spec.launcher.kind !== "process") throw new Error('launchProcess needs a spec with launcher.kind "process"');
  const executable = spec.launcher.executable;
  // The log is opened here and handed to the child as its stdout and stderr (a file
  // descriptor, no pipe through this process), then closed: nothing of the child stays open
  // in this process, so `loclab vllm up` exits once the fleet is ready (execa's file
  // redirection kept a handle, and `up` never returned). Created first, so that a server that
  // fails at once still leaves a log to read.
  const log = await open(options.logFile, "a");
  try {
    const child = spawn(executable, vllmServeArgs(spec), {
      env: { ...(options.env ?? process.env), ...vllmServeEnv(spec) },
      stdio: ["ignore", log.fd, log.fd],
      detached: true,
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once("spawn", () => resolve(child.pid!));
      child.once("error", (error) => reject(new Error(`cannot start ${executable}: ${error.message}`)));
    });
    child.unref();
    return processServer(spec, pid, options.logFile);
  } finally {
    await log.close();
  }
}

/** A handle on a server process by its PID (also one started by another loclab process). */
export function processServer(spec: VllmServerSpec, pid: number, logFile?: string): LaunchedServer {
  const alive = async () => isAlive(pid);
  return {
    spec,
    handle: { kind: "process", pid },
    ...(logFile ? { logFile } : {}),
    alive,
    async logTail(lines = 20) {
      if (!logFile) return "";
      const text = await readFile(logFile, "utf8").catch(() => "");
      return text.trimEnd().split("\n").slice(-lines).join("\n");
    },
    async stop({ graceMs = 30_000 } = {}) {
      if (!isAlive(pid)) return;
      signalGroup(pid, "SIGTERM");
      const deadline = Date.now() + graceMs;
      while (isAlive(pid) && Date.now() < deadline) await sleep(100);
      if (isAlive(pid)) {
        signalGroup(pid, "SIGKILL");
        while (isAlive(pid)) await sleep(50);
      }
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its parent) counts as gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
