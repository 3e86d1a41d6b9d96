import type { EvaluationLimits } from "@loclab/evaluation";
import { DEFAULT_PATCH_LIMITS, DEFAULT_SANDBOX_LIMITS, type PatchLimits, type SandboxLimits } from "@loclab/fixer";
import type { RepairSpec } from "@loclab/runner";
import type { RepairRecord } from "@loclab/schemas";
import type { AgentResult } from "./mini-swe-agent/fix-with-mini.js";

/** The sandbox limits of a repair run's attempts: the spec's fields over the defaults (docs/definitions.md §9). */
export function sandboxLimitsOf(repair: Pick<RepairSpec, "memoryMiB" | "sandbox">): SandboxLimits {
  return {
    ...DEFAULT_SANDBOX_LIMITS,
    ...(repair.memoryMiB !== undefined ? { memoryMiB: repair.memoryMiB } : {}),
    ...(repair.sandbox?.processes !== undefined ? { processes: repair.sandbox.processes } : {}),
    ...(repair.sandbox?.cpus !== undefined ? { cpus: repair.sandbox.cpus } : {}),
    ...(repair.sandbox?.diskMiB !== undefined ? { diskMiB: repair.sandbox.diskMiB } : {}),
  };
}

/** The final patch's limits of a repair run: the spec's over the defaults. */
export function patchLimitsOf(repair: Pick<RepairSpec, "sandbox">): PatchLimits {
  return {
    maxBytes: repair.sandbox?.patchBytes ?? DEFAULT_PATCH_LIMITS.maxBytes,
    maxBinaryFileBytes: repair.sandbox?.binaryFileBytes ?? DEFAULT_PATCH_LIMITS.maxBinaryFileBytes,
  };
}

/** The evaluation container's limits of a repair run: the spec's (over the evaluation's own defaults). */
export function evaluationLimitsOf(repair: Pick<RepairSpec, "evaluation">): Partial<EvaluationLimits> {
  const limits = repair.evaluation.limits;
  return {
    ...(limits?.processes !== undefined ? { processes: limits.processes } : {}),
    ...(limits?.memoryMiB !== undefined ? { memoryMiB: limits.memoryMiB } : {}),
    ...(limits?.cpus !== undefined ? { cpus: limits.cpus } : {}),
    ...(limits?.logMiB !== undefined ? { logBytes: limits.logMiB * 2 ** 20 } : {}),
  };
}

/** How often an attempt's commands met each limit (the ledger's `limits`); undefined when none was met. */
export function limitsHit(result: Pick<AgentResult, "toolResults" | "actionLimits" | "exit">): RepairRecord["limits"] {
  // The disk limit ends the attempt, so it is met once at most, and its exit says so (both frameworks).
  const hit = {
    memory: 0,
    processes: 0,
    output: 0,
    leftover: 0,
    cpuThrottledMs: 0,
    disk: result.exit === "disk_limit" ? 1 : 0,
  };
  // mini-swe-agent's actions (its driver's limits log; the CPU throttling is not read there).
  for (const action of result.actionLimits ?? []) {
    if (action.memoryKills) hit.memory += 1;
    if (action.forksRefused) hit.processes += 1;
    if (action.droppedBytes) hit.output += 1;
    if (action.leftoverProcesses) hit.leftover += 1;
  }
  for (const { command } of result.toolResults) {
    if (!command) continue;
    if (command.memoryKills) hit.memory += 1;
    if (command.forksRefused) hit.processes += 1;
    if (command.stdoutDroppedBytes || command.stderrDroppedBytes) hit.output += 1;
    if (command.leftoverProcesses) hit.leftover += 1;
    hit.cpuThrottledMs += command.cpuThrottledMs ?? 0;
  }
  if (!Object.values(hit).some((count) => count > 0)) return undefined;
  // `disk` only when met, so that the ledgers of runs before the disk limit read the same.
  const { disk, ...rest } = hit;
  return disk > 0 ? { ...rest, disk } : rest;
}
