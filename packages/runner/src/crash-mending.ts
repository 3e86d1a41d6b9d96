import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { relative } from "node:path";
import {
  cellLabel,
  appendJsonl,
  type KeyHistory,
  keyHistories,
  readLedger,
  rebuildCellPredictions,
  type RunRecord,
  RunRecordSchema,
  runLayout,
} from "@loclab/schemas";
import { baseRecord } from "./attempt-record.js";
import type { RunEvent } from "./run-events.js";
import type { PlannedAttempt, RunPlan } from "./run-plan.js";
import { addRecord } from "./run-summary.js";

/** The run folder's state after mending: the ledger's histories and each key's last attempt number. */
export interface MendedRun {
  histories: Map<string, KeyHistory>;
  /** Per key, the number of its last attempt (0: none). */
  lastAttempt: Map<string, number>;
  /** Tokens spent over the whole ledger, for the run's token budget. */
  tokensSpent: number;
}

/**
 * Mends what a crash or a kill left, before a session runs any attempt: a torn last ledger line
 * is set aside (and reported); an attempt whose trajectory exists without a ledger record (the
 * runner died during it) gets a `failed` record saying so; every cell's predictions file is
 * rebuilt from the ledger (`rebuildCellPredictions`), which mends a kill between an attempt's
 * ledger line and its predictions line.
 */
export async function mendRunFolder(plan: RunPlan, emit: (event: RunEvent) => void): Promise<MendedRun> {
  const dir = plan.spec.out;
  const ledgerPath = runLayout.ledger(dir);
  const read = await readLedger(ledgerPath, { repair: true });
  if (read.torn)
    emit({
      type: "note",
      message: `${ledgerPath}:${read.torn.line}: a torn last line (${read.torn.bytes} bytes, from a crash) was set aside in ${read.torn.savedTo}`,
    });
  for (const bad of read.skipped) emit({ type: "note", message: `${bad.message}; skipped (its attempt runs again)` });
  const histories = keyHistories(read.records);
  const lastAttempt = new Map<string, number>();
  for (const attempt of plan.attempts) {
    const history = histories.get(attempt.key);
    let last = Math.max(0, ...(history?.records.map((record) => record.attempt) ?? []));
    if (!history?.final) {
      for (const n of await trajectoryAttempts(dir, attempt)) {
        if (n <= last) continue;
        const record = interruptedRecord(dir, attempt, n);
        await appendJsonl(ledgerPath, record);
        addRecord(histories, record);
        last = n;
      }
    }
    lastAttempt.set(attempt.key, last);
  }
  // Interrupted records are never final, so the ledger as read gives every prediction.
  for (const cell of await rebuildCellPredictions(dir, read.records, plan.cells.map(cellLabel))) {
    for (const instanceId of cell.missing)
      emit({
        type: "note",
        message: `${cell.cell} ${instanceId}: its prediction was recorded in the ledger but missing from ${cell.path} (a kill between the two writes); rebuilt from the ledger`,
      });
    if (cell.dropped > 0)
      emit({
        type: "note",
        message: `${cell.path}: ${cell.dropped} line(s) the ledger does not give were dropped; rebuilt from the ledger`,
      });
  }
  const tokensSpent = read.records.reduce((sum, record) => sum + (record.usage.totalTokens ?? 0), 0);
  return { histories, lastAttempt, tokensSpent };
}

/** The attempt numbers of the trajectories a key has on disk, ascending. */
async function trajectoryAttempts(dir: string, attempt: PlannedAttempt): Promise<number[]> {
  const folder = runLayout.trajectoryDir(dir, attempt.cellLabel, attempt.instance.instance_id);
  const names = existsSync(folder) ? await readdir(folder) : [];
  return names
    .map((name) => Number(/^attempt-(\d+)\.traj\.jsonl$/.exec(name)?.[1] ?? 0))
    .filter((n) => n > 0)
    .sort((a, b) => a - b);
}

function interruptedRecord(dir: string, attempt: PlannedAttempt, n: number): RunRecord {
  const record = baseRecord(attempt, n, null, new Date().toISOString());
  return RunRecordSchema.parse({
    ...record,
    outcome: "failed",
    trajectory: relative(dir, runLayout.trajectory(dir, attempt.cellLabel, attempt.instance.instance_id, n)),
    error: "interrupted: the runner stopped during this attempt (a crash or a kill); it runs again",
  });
}
