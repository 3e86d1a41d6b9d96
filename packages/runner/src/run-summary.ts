import { hasResult, type KeyHistory, keyHistories, type RunRecord } from "@loclab/schemas";
import type { RunSummary } from "./run-events.js";
import type { RunPlan } from "./run-plan.js";

/** Adds a record to its key's history (in place). */
export function addRecord(histories: Map<string, KeyHistory>, record: RunRecord): void {
  const merged = keyHistories([...(histories.get(record.key)?.records ?? []), record]).get(record.key);
  if (merged) histories.set(record.key, merged);
}

/** The summary over the plan's keys from the ledger's histories. Pure. */
export function summarize(
  plan: Pick<RunPlan, "attempts" | "spec">,
  histories: ReadonlyMap<string, KeyHistory>,
  session: Pick<RunSummary, "attemptsThisSession" | "failuresThisSession" | "retriesThisSession" | "stoppedBy">,
): RunSummary {
  const outcomes: RunSummary["outcomes"] = {};
  const noPrediction: Record<string, number> = {};
  let done = 0;
  let predicted = 0;
  let resolved = 0;
  for (const attempt of plan.attempts) {
    const history = histories.get(attempt.key);
    const final = history?.final;
    if (final) {
      done += 1;
      outcomes[final.outcome] = (outcomes[final.outcome] ?? 0) + 1;
      if (final.repair?.resolved) resolved += 1;
      if (hasResult(final)) predicted += 1;
      else noPrediction[final.outcome] = (noPrediction[final.outcome] ?? 0) + 1;
      continue;
    }
    const last = history?.records.at(-1);
    const reason = last ? `open after ${last.outcome}` : "not started";
    noPrediction[reason] = (noPrediction[reason] ?? 0) + 1;
  }
  return {
    dir: plan.spec.out,
    keys: plan.attempts.length,
    done,
    predicted,
    ...(plan.spec.kind === "repair" ? { resolved } : {}),
    outcomes,
    noPrediction,
    ...session,
    complete: done === plan.attempts.length,
  };
}
