import { appendJsonl, type KeyHistory, type RunRecord } from "@loclab/schemas";
import { join } from "node:path";
import type { ExecutionResult } from "./attempt-job.js";

/** Where a distributed run counts its duplicate executions (beside the ledger, never in it). */
export const duplicatesFile = (dir: string) => join(dir, "duplicates.jsonl");

/**
 * What the coordinator does with one execution's result, decided from the key's history alone
 * (pure): `commit` it; `replay` (this very record is in the ledger already: the coordinator died
 * between its ledger line and deleting the stream entry); or `duplicate` (the key already has a
 * final outcome, or attempt `n` already has another record: a job that stalled and ran twice).
 * The ledger thus holds at most one record per key and attempt, and one final per key.
 */
export function commitDecision(
  history: KeyHistory | undefined,
  result: Pick<ExecutionResult, "attempt" | "record">,
): "commit" | "replay" | "duplicate" {
  const records = history?.records ?? [];
  const same = records.find((record) => record.attempt === result.attempt);
  if (same) return sameRecord(same, result.record) ? "replay" : "duplicate";
  if (history?.final) return "duplicate";
  return "commit";
}

function sameRecord(a: RunRecord, b: RunRecord): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One line of `duplicates.jsonl`: an execution that was not committed, and the one that was. */
export interface DuplicateExecution {
  key: string;
  attempt: number;
  execution: string;
  worker: string;
  outcome: string;
  /** The outcome the ledger holds for that key (its final, or attempt n's record). */
  committedOutcome: string | null;
  finishedAt: string;
}

export async function recordDuplicate(dir: string, result: ExecutionResult, history: KeyHistory | undefined) {
  const committed = history?.records.find((record) => record.attempt === result.attempt) ?? history?.final;
  const line: DuplicateExecution = {
    key: result.key,
    attempt: result.attempt,
    execution: result.execution,
    worker: result.worker,
    outcome: result.record.outcome,
    committedOutcome: committed?.outcome ?? null,
    finishedAt: new Date(result.finishedAt).toISOString(),
  };
  await appendJsonl(duplicatesFile(dir), line);
}
