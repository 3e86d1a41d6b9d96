import { createHash } from "node:crypto";
import { resolve } from "node:path";

/** The BullMQ queue every coordinator adds to and every worker takes from, unless told another. */
export const DEFAULT_QUEUE_NAME = "loclab-attempts";

/**
 * A run's id on the queue: the run folder's absolute path and its manifest's start time, hashed.
 * Stable across the run's sessions (resuming finds its jobs and results again) and distinct for
 * two folders started from one spec, whose attempt keys are equal.
 */
export function queueRunId(out: string, startedAt: string): string {
  return createHash("sha256")
    .update(`${resolve(out)}\n${startedAt}`)
    .digest("hex")
    .slice(0, 16);
}

/**
 * The BullMQ job id of one attempt key: `<run id>.<key>`. BullMQ ignores an add whose job id
 * exists, so enqueuing a key twice is one job; ids must not hold `:` (BullMQ's key separator).
 */
export function attemptJobId(runId: string, key: string): string {
  return `${runId}.${key}`;
}

/** The Redis keys of one run beside its jobs (all under `loclab:run:<id>:`). */
export const runKeys = (runId: string) => ({
  /** The run's spec and kind, as the coordinator parsed them: what a worker plans from. */
  spec: `loclab:run:${runId}:spec`,
  /** The results stream: every execution's record and files, read and committed by the coordinator. */
  results: `loclab:run:${runId}:results`,
  /** Per endpoint, the sorted set of slots held across workers (member: holder, score: expiry). */
  slots: (endpoint: number) => `loclab:run:${runId}:slots:${endpoint}`,
  /** The files workers share: a repair run's localizer stages (field: the path in the run folder). */
  shared: `loclab:run:${runId}:shared`,
  /** A localizer stage's lock, held by the worker that runs it. */
  stageLock: (stageKey: string) => `loclab:run:${runId}:stage-lock:${stageKey}`,
});
