import type { TaskSummary } from "../model/task-summary.js";
import type { BreakdownOptions } from "./breakdown-options.js";
import { budgetExit } from "./budget-exit.js";

/** The four outcome categories of the breakdown; they partition a run's tasks. */
export const OUTCOME_CATEGORIES = ["solved", "outOfBudget", "wrongPatch", "noPatch"] as const;
export type OutcomeCategory = (typeof OUTCOME_CATEGORIES)[number];

/** How the columns read in tables and charts. */
export const OUTCOME_CATEGORY_LABELS: Record<OutcomeCategory, string> = {
  solved: "solved",
  outOfBudget: "out of budget",
  wrongPatch: "wrong patch",
  noPatch: "no patch",
};

/**
 * The outcome category of one task (docs/definitions.md §8), first match wins:
 * 1. solved — the resolved label says its hidden tests pass (whatever the log says);
 * 2. outOfBudget — its format's budget rule fired (budgetExit), patch or not;
 * 3. wrongPatch — it ended with a non-empty patch that fails;
 * 4. noPatch — it ended with none (including a trajectory missing from the run).
 * So solved + outOfBudget + wrongPatch + noPatch = tasks.
 */
export function taskOutcomeCategory(
  task: TaskSummary | undefined,
  resolved: boolean,
  options: BreakdownOptions = {},
): OutcomeCategory {
  if (resolved) return "solved";
  if (!task) return "noPatch";
  if (budgetExit(task, options)) return "outOfBudget";
  return task.hasPatch ? "wrongPatch" : "noPatch";
}
