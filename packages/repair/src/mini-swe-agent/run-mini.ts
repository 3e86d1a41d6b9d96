import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TrajectoryExit } from "@loclab/schemas";

/** The driver shipped beside dist/ (package.json `files`). */
export const MINI_DRIVER = fileURLToPath(new URL("../../python/loclab_mini.py", import.meta.url));

export interface MiniSweAgentJob {
  python: string;
  /** The sandbox container loclab started (mini-swe-agent executes in it; loclab removes it). */
  container: string;
  image: string;
  cwd: string;
  /** The issue; the hand-off goes through mini-swe-agent's instance template, after it. */
  task: string;
  handOff?: string;
  endpoint: { baseURL: string; model: string; apiKeyEnv?: string };
  sampling: { temperature?: number; topP?: number; seed?: number; maxTokens?: number };
  stepLimit: number;
  costLimit: number;
  /** The attempt's wall budget: mini-swe-agent checks it between steps, loclab kills it at the deadline. */
  wallSeconds: number;
  commandTimeoutSeconds: number;
  trajectoryPath: string;
  /** DOCKER_HOST and the like for the `docker` CLI mini-swe-agent calls. */
  env?: Record<string, string>;
  /** Ends the driver's process group early (the sandbox's disk limit passed): the result's status is `DiskLimit`. */
  stop?: AbortSignal;
  /**
   * loclab's sandbox rules for each action (docs/definitions.md §9, "sandbox limits"): the sweep
   * script and the keeper's pid it spares, the bytes of output kept at each end, the limits named
   * in the notes. Without it the driver runs mini-swe-agent's own `execute`.
   */
  sandbox?: {
    sweepScript: string;
    keeper: string;
    keepBytes: number;
    memoryMiB: number;
    processes: number;
    /** A JSONL file the driver appends each action's limits to (MiniActionLimits). */
    limitsLog?: string;
  };
}

/** What one mini-swe-agent action met of the sandbox's limits (a line of the driver's limits log). */
export interface MiniActionLimits {
  outputBytes: number;
  droppedBytes: number;
  memoryKills: number;
  forksRefused: number;
  leftoverProcesses: number;
  timedOut: boolean;
}

export interface MiniSweAgentResult {
  /** mini-swe-agent's exit status (`Submitted`, `LimitsExceeded`, `TimeExceeded`, `RepeatedFormatError`, an exception's name), or `killed`. */
  exitStatus: string;
  exit: TrajectoryExit;
  submission: string;
  apiCalls: number;
  /** The supervisor ended it at the wall deadline. */
  killed: boolean;
  /** The driver's error (its exception, or its stderr's tail when it gave no result). */
  error?: string;
  ms: number;
}

/** mini-swe-agent's exit status in loclab's trajectory exits. */
export function miniExit(status: string): TrajectoryExit {
  switch (status) {
    case "Submitted":
      return "submitted";
    case "LimitsExceeded":
      return "step_limit";
    case "TimeExceeded":
    case "killed":
      return "time_limit";
    case "RepeatedFormatError":
      return "format_error";
    case "ContextWindowExceededError":
      return "context_limit";
    case "DiskLimit":
      return "disk_limit";
    default:
      return "error";
  }
}

/**
 * Runs mini-swe-agent on one task (the driver `python/loclab_mini.py` in its own process group),
 * and supplies what mini-swe-agent lacks: a supervisor deadline. At `wallSeconds` (plus 5 s for
 * the step in flight to be noted) the whole group is sent SIGTERM, then SIGKILL; a command
 * hanging in the container is then ended with the container, which the caller removes. The API
 * key goes to the driver in its environment (OPENAI_API_KEY), never in the job file.
 */
export async function runMiniSweAgent(job: MiniSweAgentJob): Promise<MiniSweAgentResult> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), "loclab-mini-"));
  const jobPath = join(dir, "job.json");
  await writeFile(
    jobPath,
    JSON.stringify({
      container: job.container,
      image: job.image,
      cwd: job.cwd,
      task: job.task,
      handOff: job.handOff ?? "",
      baseURL: job.endpoint.baseURL,
      model: job.endpoint.model,
      temperature: job.sampling.temperature ?? null,
      top_p: job.sampling.topP ?? null,
      seed: job.sampling.seed ?? null,
      max_tokens: job.sampling.maxTokens ?? null,
      stepLimit: job.stepLimit,
      costLimit: job.costLimit,
      wallSeconds: Math.ceil(job.wallSeconds),
      commandTimeoutSeconds: Math.ceil(job.commandTimeoutSeconds),
      trajectory: job.trajectoryPath,
      ...(job.sandbox ? { sandbox: job.sandbox } : {}),
    }),
  );
  const key = job.endpoint.apiKeyEnv ? process.env[job.endpoint.apiKeyEnv] : undefined;
  const child = spawn(job.python, [MINI_DRIVER, jobPath], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...job.env,
      MSWEA_SILENT_STARTUP: "1",
      MSWEA_GLOBAL_CONFIG_DIR: dir,
      LITELLM_LOCAL_MODEL_COST_MAP: "True",
      ...(key ? { OPENAI_API_KEY: key } : { OPENAI_API_KEY: "none" }),
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
  });
  let killed = false;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // The group is gone already.
    }
  };
  const end = () => {
    signal("SIGTERM");
    setTimeout(() => signal("SIGKILL"), 3000).unref();
  };
  const deadline = setTimeout(
    () => {
      killed = true;
      end();
    },
    job.wallSeconds * 1000 + 5000,
  );
  let stopped = false;
  const onStop = () => {
    stopped = true;
    end();
  };
  if (job.stop?.aborted) onStop();
  else job.stop?.addEventListener("abort", onStop, { once: true });
  const code = await new Promise<number | null>((resolve) => {
    child.on("error", (error) => {
      stderr += `\n${error.message}`;
      resolve(null);
    });
    child.on("close", (status) => resolve(status));
  });
  clearTimeout(deadline);
  job.stop?.removeEventListener("abort", onStop);
  await rm(dir, { recursive: true, force: true });
  const ms = performance.now() - started;
  const last = stdout.trim().split("\n").at(-1) ?? "";
  let result: { exitStatus?: string; submission?: string; apiCalls?: number; error?: string } | undefined;
  try {
    result = JSON.parse(last);
  } catch {
    result = undefined;
  }
  if (stopped)
    return { exitStatus: "DiskLimit", exit: miniExit("DiskLimit"), submission: "", apiCalls: 0, killed: true, ms };
  if (killed || !result) {
    const exitStatus = killed ? "killed" : "error";
    return {
      exitStatus,
      exit: miniExit(exitStatus),
      submission: "",
      apiCalls: 0,
      killed,
      ...(killed
        ? {}
        : {
            error: `mini-swe-agent's driver exited ${code} without a result: ${stderr.trim().split("\n").slice(-3).join(" | ")}`,
          }),
      ms,
    };
  }
  const exitStatus = result.exitStatus ?? "error";
  return {
    exitStatus,
    exit: miniExit(exitStatus),
    submission: result.submission ?? "",
    apiCalls: result.apiCalls ?? 0,
    killed: false,
    ...(result.error ? { error: result.error } : {}),
    ms,
  };
}
