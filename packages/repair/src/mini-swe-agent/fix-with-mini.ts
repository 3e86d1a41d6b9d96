import { existsSync } from "node:fs";
import { watchWritableLayer } from "@loclab/docker";
import {
  type ContainerSandbox,
  DEFAULT_PATCH_LIMITS,
  DISK_POLL_MS,
  type FixResult,
  finalPatch,
  type PatchLimits,
  SWEEP_SCRIPT,
} from "@loclab/fixer";
import { readJsonl, type TrajectoryExit } from "@loclab/schemas";
import { miniTotals } from "./mini-totals.js";
import { type MiniActionLimits, type MiniSweAgentJob, runMiniSweAgent } from "./run-mini.js";

/**
 * A repair agent's result in the fixer's shape, its exit any of the trajectory exits
 * (mini-swe-agent also ends on format errors); mini-swe-agent's actions have no tool results,
 * their limits come from the driver's limits log instead.
 */
export type AgentResult = Omit<FixResult, "exit"> & { exit: TrajectoryExit; actionLimits?: MiniActionLimits[] };

/** The driver's limits log beside the trajectory: attempt-N.traj.json → attempt-N.limits.jsonl. */
export function miniLimitsLog(trajectoryPath: string): string {
  return `${trajectoryPath.replace(/\.traj\.json$/, "")}.limits.jsonl`;
}

/** litellm's exceptions for a server that failed in transport (after its retries): the infrastructure's doing. */
const TRANSPORT_FAILURES = new Set([
  "APIConnectionError",
  "ServiceUnavailableError",
  "InternalServerError",
  "Timeout",
  "APIError",
  "RateLimitError",
]);

/**
 * mini-swe-agent as the repair agent of an attempt, in the sandbox loclab started: its result in
 * the fixer's shape, so that the patch, the evaluation and the ledger record follow the same
 * path as loclab's fixer. The patch is its submission when it submitted one (mini-swe-agent's
 * contract: the output after `COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`), else the repository's
 * diff when it stopped (out of steps or time), as for loclab's fixer. Tokens and the first edit
 * come from its trajectory, read with the mini-swe-agent importer (`miniTotals`).
 */
export async function fixWithMiniSweAgent(
  sandbox: ContainerSandbox,
  job: Omit<MiniSweAgentJob, "container" | "cwd" | "image"> & { patchLimits?: PatchLimits },
): Promise<AgentResult & { exitStatus: string }> {
  const started = performance.now();
  const { patchLimits, ...miniJob } = job;
  const limitsLog = miniLimitsLog(job.trajectoryPath);
  // The disk limit, watched from here for the whole run (the driver's actions are `docker exec`s
  // of its own): past it, the driver is stopped and every process of the container ended.
  const stop = new AbortController();
  const layer = watchWritableLayer(sandbox.container, {
    limitBytes: sandbox.limits.diskMiB * 2 ** 20,
    intervalMs: DISK_POLL_MS,
    onOver: () => stop.abort(),
  });
  const mini = await runMiniSweAgent({
    ...miniJob,
    container: sandbox.container.id,
    image: sandbox.image,
    cwd: sandbox.workdir,
    sandbox: {
      sweepScript: SWEEP_SCRIPT,
      keeper: sandbox.keeperPid,
      keepBytes: sandbox.limits.keepBytes,
      memoryMiB: sandbox.limits.memoryMiB,
      processes: sandbox.limits.processes,
      limitsLog,
    },
    stop: stop.signal,
  });
  const disk = await layer.stop();
  if (disk.over) await sandbox.endCommands();
  // The project's JSONL reader: a torn or bad line names its file and line.
  const actionLimits = existsSync(limitsLog)
    ? (await readJsonl<MiniActionLimits>(limitsLog)).records.map((record) => record.value)
    : [];
  const { patch, patchOverLimit } = await finalPatch(
    sandbox,
    patchLimits ?? DEFAULT_PATCH_LIMITS,
    mini.exit === "submitted" && mini.submission.trim() !== "" ? mini.submission : undefined,
  );
  const totals = existsSync(job.trajectoryPath) ? await miniTotals(job.trajectoryPath) : undefined;
  const phase = (
    usage: { promptTokens: number; completionTokens: number; totalTokens: number; apiCalls: number } | undefined,
  ) => ({
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    totalTokens: usage?.totalTokens ?? 0,
    apiCalls: usage?.apiCalls ?? 0,
    ms: 0,
  });
  const before = phase(totals?.beforeFirstEdit);
  const after = phase(totals?.afterFirstEdit);
  const usage = {
    promptTokens: before.promptTokens + after.promptTokens,
    completionTokens: before.completionTokens + after.completionTokens,
    totalTokens: before.totalTokens + after.totalTokens,
    apiCalls: totals?.apiCalls ?? mini.apiCalls,
  };
  const transport = TRANSPORT_FAILURES.has(mini.exitStatus);
  return {
    exit: mini.exit,
    exitStatus: mini.exitStatus,
    patch,
    calls: mini.apiCalls,
    turns: mini.apiCalls,
    usage,
    phases: { beforeFirstEdit: before, afterFirstEdit: after },
    loops: (totals?.cutSteps ?? []).map((step) => ({ step, completionTokens: undefined, ms: 0 })),
    recoveries: [],
    compactions: [],
    toolResults: [],
    actionLimits,
    agents: {
      fixer: usage,
      localizer: { promptTokens: 0, completionTokens: 0, totalTokens: 0, apiCalls: 0, turns: 0 },
    },
    localizerTrajectories: [],
    ...(patchOverLimit ? { patchOverLimit } : {}),
    ...(mini.error ? { error: mini.error } : {}),
    ...(mini.exit === "error" ? { errorKind: transport ? "transport" : "request" } : {}),
    modelMs: 0,
    wallMs: performance.now() - started,
  };
}
