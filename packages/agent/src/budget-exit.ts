import type { TrajectoryExit } from "@loclab/schemas";

/** Which budget ended a run. */
export type LoopBudget = "turns" | "tokens" | "wall_time" | "context";

/** Where the loop stands when it checks its budgets, before a model call. */
export interface BudgetState {
  turns: number;
  totalTokens: number;
  elapsedMs: number;
  /** A repair turn is owed: it is made even when the turns are spent. */
  repairPending: boolean;
}

export interface BudgetLimits {
  maxTurns: number;
  maxTotalTokens?: number;
  maxWallMs?: number;
}

/**
 * The budget that forbids the next model call, with the trajectory exit it maps to, or
 * undefined when the call may be made: turns (`step_limit`, unless a repair turn is owed),
 * total tokens (`cost_limit`), wall time (`time_limit`). Pure.
 */
export function budgetExit(
  state: BudgetState,
  limits: BudgetLimits,
): { exit: TrajectoryExit; budget: LoopBudget } | undefined {
  if (state.turns >= limits.maxTurns && !state.repairPending) return { exit: "step_limit", budget: "turns" };
  if (limits.maxTotalTokens !== undefined && state.totalTokens >= limits.maxTotalTokens)
    return { exit: "cost_limit", budget: "tokens" };
  if (limits.maxWallMs !== undefined && state.elapsedMs >= limits.maxWallMs)
    return { exit: "time_limit", budget: "wall_time" };
  return undefined;
}
