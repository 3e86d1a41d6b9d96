import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { probeReadiness, type Readiness } from "./readiness.js";
import { baseURLOf, servedName, type VllmServerSpec } from "./server-spec.js";
import {
  cancelSlurmJob,
  type SlurmCommandOptions,
  type SlurmTask,
  slurmTaskEnded,
  slurmTasks,
  submitSbatch,
} from "./slurm-jobs.js";
import { renderSbatchScript, type SlurmJobOptions } from "./slurm-script.js";

export interface SlurmServersOptions extends SlurmCommandOptions {
  /** The folder the job is submitted from (its script and, by default, its logs). */
  dir: string;
  job?: SlurmJobOptions;
  /** How often the queue and the servers are looked at; default 2 s. */
  pollMs?: number;
  onEvent?: (event: SlurmServersEvent) => void;
}

export type SlurmServersEvent =
  | { type: "submitted"; jobId: string; scriptPath: string; servers: number }
  | { type: "task"; id: string; state: string; node?: string; reason?: string }
  | { type: "ready"; index: number; baseURL: string; node: string | undefined }
  | { type: "not-ready"; index: number; readiness: Readiness };

/** A server of the job that passed the five readiness probes. */
export interface SlurmEndpoint {
  /** Its index in the specs (the array task). */
  index: number;
  baseURL: string;
  /** The served model name. */
  model: string;
  node: string | undefined;
  /** The Slurm task id (`JOBID` or `JOBID_TASK`). */
  task: string;
}

export interface SlurmServers {
  jobId: string;
  scriptPath: string;
  /**
   * Each server once it is ready, in the order they become ready: the job's tasks are followed
   * with `squeue`, and a running task's server is probed (alive = the task runs; /health;
   * /v1/models; a completion; prompt log-probabilities). A task that ends before it is ready
   * is an error naming it, its state and the end of its log. Ends when every server was given,
   * or on `signal`.
   */
  ready(signal?: AbortSignal): AsyncGenerator<SlurmEndpoint>;
  tasks(): Promise<SlurmTask[]>;
  /** `scancel`, then waits until no task of the job runs. */
  cancel(): Promise<void>;
}

/**
 * vLLM servers as a Slurm job (docs/guide/distributed-runs.md): `renderSbatchScript` for the
 * specs, submitted with `sbatch --parsable`, followed with `squeue`/`scontrol`, probed for
 * readiness, cancelled with `scancel`. A server's address is its node's name when the spec
 * listens on 0.0.0.0 (a cluster), else the spec's host.
 */
export async function launchSlurmServers(
  specs: readonly VllmServerSpec[],
  options: SlurmServersOptions,
): Promise<SlurmServers> {
  const emit = options.onEvent ?? (() => undefined);
  const pollMs = options.pollMs ?? 2000;
  const script = renderSbatchScript(specs, {
    ...options.job,
    output: options.job?.output ?? join(options.dir, "loclab-vllm-%A_%a.log"),
  });
  const { jobId, scriptPath } = await submitSbatch(script, options);
  emit({ type: "submitted", jobId, scriptPath, servers: specs.length });
  const tasks = () => slurmTasks(jobId, options);
  const logTail = async (task: SlurmTask) => {
    const pattern = options.job?.output ?? join(options.dir, "loclab-vllm-%A_%a.log");
    const path = pattern.replaceAll("%A", jobId).replaceAll("%a", String(task.index)).replaceAll("%j", task.id);
    const text = await readFile(path, "utf8").catch(() => "");
    return text.trimEnd().split("\n").slice(-5).join("\n");
  };
  return {
    jobId,
    scriptPath,
    tasks,
    async *ready(signal?: AbortSignal) {
      const given = new Set<number>();
      const seen = new Map<string, string>();
      while (given.size < specs.length && !signal?.aborted) {
        const now = await tasks();
        for (const task of now) {
          const key = `${task.state}|${task.node ?? ""}`;
          if (seen.get(task.id) !== key) {
            seen.set(task.id, key);
            emit({
              type: "task",
              id: task.id,
              state: task.state,
              ...(task.node ? { node: task.node } : {}),
              ...(task.reason ? { reason: task.reason } : {}),
            });
          }
          const spec = specs[task.index];
          if (!spec || given.has(task.index)) continue;
          if (slurmTaskEnded(task))
            throw new Error(
              `Slurm task ${task.id} (server ${task.index}, ${servedName(spec)}) ended ${task.state} before it was ready${(await logTail(task)) ? `; its log ends:\n${await logTail(task)}` : ""}`,
            );
          if (task.state !== "RUNNING") continue;
          const placed = { ...spec, host: spec.host === "0.0.0.0" && task.node ? task.node : spec.host };
          const readiness = await probeReadiness(placed, {
            alive: async () => (await tasks()).some((t) => t.index === task.index && t.state === "RUNNING"),
          });
          if (!readiness.ready) {
            emit({ type: "not-ready", index: task.index, readiness });
            continue;
          }
          given.add(task.index);
          const endpoint: SlurmEndpoint = {
            index: task.index,
            baseURL: baseURLOf(placed),
            model: servedName(spec),
            node: task.node,
            task: task.id,
          };
          emit({ type: "ready", index: task.index, baseURL: endpoint.baseURL, node: task.node });
          yield endpoint;
        }
        if (given.size < specs.length) await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    async cancel() {
      await cancelSlurmJob(jobId, options);
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        const now = await tasks();
        if (now.every((task) => slurmTaskEnded(task))) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      throw new Error(`Slurm job ${jobId} still has tasks running 2 minutes after scancel`);
    },
  };
}
