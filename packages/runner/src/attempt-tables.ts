import { LEAK_AUDIT_COUNTS } from "@loclab/controls";
import { type CellAttempts, cellLabel, hasResult, type KeyHistory, type RunRecord } from "@loclab/schemas";
import type { PlannedAttempt } from "./run-plan.js";

/**
 * Per cell, from the ledger's histories: how the keys ended (final outcomes and exits, open
 * keys) and the leak audits of their final attempts, summed, with every term found. Pure.
 */
export function attemptsByCell(
  attempts: readonly PlannedAttempt[],
  histories: ReadonlyMap<string, KeyHistory>,
): CellAttempts[] {
  const byCell = new Map<string, CellAttempts>();
  const found = new Map<string, Map<string, number>>();
  for (const attempt of attempts) {
    const cell = cellLabel(attempt.cell);
    let row = byCell.get(cell);
    if (!row) {
      row = {
        cell,
        keys: 0,
        predicted: 0,
        outcomes: {},
        exits: {},
        audited: 0,
        leaks: Object.fromEntries(LEAK_AUDIT_COUNTS.map((field) => [field, 0])),
        found: [],
      };
      byCell.set(cell, row);
      found.set(cell, new Map());
    }
    row.keys += 1;
    const final: RunRecord | undefined = histories.get(attempt.key)?.final;
    const outcome = final?.outcome ?? "open";
    row.outcomes[outcome] = (row.outcomes[outcome] ?? 0) + 1;
    if (!final) continue;
    if (hasResult(final)) row.predicted += 1;
    const exit = final.exit ?? "none";
    row.exits[exit] = (row.exits[exit] ?? 0) + 1;
    if (!final.leaks) continue;
    row.audited += 1;
    for (const field of LEAK_AUDIT_COUNTS) row.leaks[field] = (row.leaks[field] ?? 0) + final.leaks[field];
    const terms = found.get(cell) as Map<string, number>;
    for (const term of final.leaks.found) terms.set(term, (terms.get(term) ?? 0) + 1);
  }
  for (const [cell, row] of byCell) {
    row.found = [...(found.get(cell) as Map<string, number>)]
      .map(([term, count]) => ({ term, attempts: count }))
      .sort((a, b) => b.attempts - a.attempts || (a.term < b.term ? -1 : 1));
  }
  return [...byCell.values()];
}
