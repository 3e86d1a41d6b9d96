import { isBudgetExit, TRAJECTORY_BUDGET_EXITS } from "@loclab/schemas";
import type { TaskSummary } from "../model/task-summary.js";
import { type BreakdownOptions, DEFAULT_BREAKDOWN_OPTIONS } from "./breakdown-options.js";
import { countedCalls } from "./counted-calls.js";

/** Which budget ended a task. */
export type BudgetLimit = "steps" | "cost" | "time" | "context" | "rounds" | "calls" | "disk";

/** A task stopped by its budget, and the rule that says so (for the table's footnotes). */
export interface BudgetExit {
  limit: BudgetLimit;
  rule: string;
}

function miniSweAgentRule(task: TaskSummary): BudgetExit | null {
  const status = task.exitStatus ?? "";
  const steps = task.limits.steps;
  const cost = task.limits.costUsd;
  const reachedSteps = steps !== undefined && task.apiCalls !== null && task.apiCalls >= steps;
  const reachedCost = cost !== undefined && task.costUsd !== null && task.costUsd >= cost;
  if (status === "LimitsExceeded") {
    if (reachedSteps)
      return { limit: "steps", rule: "mini-swe-agent: exit LimitsExceeded with api_calls ≥ step_limit" };
    if (cost !== undefined)
      return { limit: "cost", rule: "mini-swe-agent: exit LimitsExceeded below step_limit, so cost_limit" };
    return { limit: "steps", rule: "mini-swe-agent: exit LimitsExceeded (no cost_limit logged)" };
  }
  if (/ContextWindowExceeded/i.test(status)) return { limit: "context", rule: `mini-swe-agent: exit ${status}` };
  if (/Timeout/i.test(status)) return { limit: "time", rule: `mini-swe-agent: exit ${status}` };
  if (status !== "Submitted") {
    if (reachedSteps) return { limit: "steps", rule: "mini-swe-agent: not submitted and api_calls ≥ step_limit" };
    if (reachedCost) return { limit: "cost", rule: "mini-swe-agent: not submitted and instance_cost ≥ cost_limit" };
  }
  return null;
}

function sweAgentRule(task: TaskSummary): BudgetExit | null {
  const status = task.exitStatus ?? "";
  if (/exit_cost/.test(status))
    return { limit: "cost", rule: `SWE-agent: exit status "${status}" (per-instance cost limit)` };
  if (/exit_context/.test(status))
    return { limit: "context", rule: `SWE-agent: exit status "${status}" (context window)` };
  if (/exit_(step|call)/.test(status)) return { limit: "steps", rule: `SWE-agent: exit status "${status}"` };
  if (/exit_time|timeout/i.test(status)) return { limit: "time", rule: `SWE-agent: exit status "${status}"` };
  return null;
}

function autoCodeRoverRule(task: TaskSummary, roundLimit: number): BudgetExit | null {
  if (task.rounds !== null && task.rounds > roundLimit) {
    return {
      limit: "rounds",
      rule: `AutoCodeRover: last conversation_round_N has N > conv_round_limit (${roundLimit}): context retrieval used every round, then wrote the patch anyway`,
    };
  }
  return null;
}

/**
 * Whether a task ran out of budget, by its format's rule (issue 8):
 * - mini-swe-agent 1.x/2.x: exit status LimitsExceeded (steps when api_calls ≥ step_limit,
 *   else cost), an exit status naming ContextWindowExceeded (context) or Timeout (time); a task
 *   not submitted whose api_calls or cost reached the configured limit;
 * - SWE-agent 0.x: exit status containing exit_cost (cost; also "submitted (exit_cost)", the
 *   autosubmission), exit_context (context);
 * - AutoCodeRover: more conversation rounds than conv_round_limit (default 10);
 * - loclab: the budget exits of the trajectory schema (TRAJECTORY_BUDGET_EXITS: step_limit,
 *   cost_limit, time_limit, context_limit, call_limit);
 * - any format, when configured: counted calls ≥ callBudget, wall-clock ≥ timeLimitSeconds.
 * Null when none applies.
 */
export function budgetExit(task: TaskSummary, options: BreakdownOptions = {}): BudgetExit | null {
  let exit: BudgetExit | null = null;
  switch (task.format) {
    case "mini-swe-agent-1":
    case "mini-swe-agent-2":
      exit = miniSweAgentRule(task);
      break;
    case "swe-agent":
      exit = sweAgentRule(task);
      break;
    case "autocoderover":
      exit = autoCodeRoverRule(
        task,
        options.autoCodeRoverRoundLimit ?? DEFAULT_BREAKDOWN_OPTIONS.autoCodeRoverRoundLimit,
      );
      break;
    case "loclab": {
      const status = task.exitStatus ?? "";
      if (isBudgetExit(status)) exit = { limit: TRAJECTORY_BUDGET_EXITS[status], rule: `loclab: exit ${status}` };
      break;
    }
  }
  if (exit) return exit;
  if (options.callBudget !== undefined && countedCalls(task, options.calls) >= options.callBudget) {
    return { limit: "calls", rule: `counted tool calls ≥ call budget (${options.callBudget})` };
  }
  if (options.timeLimitSeconds !== undefined && task.seconds !== null && task.seconds >= options.timeLimitSeconds) {
    return { limit: "time", rule: `wall clock ≥ time limit (${options.timeLimitSeconds} s)` };
  }
  return null;
}
