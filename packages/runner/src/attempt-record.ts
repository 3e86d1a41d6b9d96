import { RUN_RECORD_KIND, type RunRecord, SCHEMA_VERSION } from "@loclab/schemas";
import type { PlannedAttempt } from "./run-plan.js";

/** A ledger record for attempt `n` of a key, with nothing done yet (outcome `failed`): what every record starts from. */
export function baseRecord(
  attempt: PlannedAttempt,
  n: number,
  endpoint: RunRecord["endpoint"],
  startedAt: string,
): RunRecord {
  return {
    kind: RUN_RECORD_KIND,
    schemaVersion: SCHEMA_VERSION,
    key: attempt.key,
    instanceId: attempt.instance.instance_id,
    attempt: n,
    seed: attempt.cell.seed,
    control: attempt.cell.control,
    ...(attempt.cell.arm !== undefined ? { arm: attempt.cell.arm } : {}),
    ...(attempt.cell.framework !== undefined ? { framework: attempt.cell.framework } : {}),
    endpoint,
    outcome: "failed",
    exit: null,
    turns: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    wallMs: 0,
    modelMs: 0,
    retries: [],
    trajectory: null,
    startedAt,
    endedAt: new Date().toISOString(),
  };
}
