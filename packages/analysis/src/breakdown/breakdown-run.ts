import type { TaskSummary } from "../model/task-summary.js";
import { badPaths } from "./bad-paths.js";
import { type BreakdownOptions, DEFAULT_BREAKDOWN_OPTIONS } from "./breakdown-options.js";
import { budgetExit } from "./budget-exit.js";
import { countedCalls } from "./counted-calls.js";
import { loopOutputs } from "./loop-outputs.js";
import { median } from "./median.js";
import { OUTCOME_CATEGORIES, type OutcomeCategory, taskOutcomeCategory } from "./task-outcome-category.js";

/** One run's input to the breakdown: its task summaries and the ids its labels call resolved. */
export interface RunInput {
  name: string;
  summaries: readonly TaskSummary[];
  /** Resolved instance ids (ids outside the run's tasks are ignored). */
  resolved: ReadonlySet<string>;
}

/** Sum and median of one quantity over the tasks that have it. */
export interface Spread {
  total: number;
  median: number | null;
  /** Tasks that had the quantity (time needs timestamps, tokens need usage). */
  tasks: number;
}

/** Time, tokens and money of the tasks of one outcome category. */
export interface CategoryCost {
  tasks: number;
  seconds: Spread;
  tokens: Spread;
  costUsd: Spread;
}

/** The paired comparison of a run with the base run on their shared tasks. */
export interface VsBase {
  base: string;
  /** Shared tasks compared. */
  n: number;
  /** Solved by the base only (McNemar's b). */
  baseOnly: number;
  /** Solved by this run only (c). */
  runOnly: number;
  /** Exact McNemar p, min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, ½). */
  p: number;
}

/** Every row's task ids per column, for drilling down in a notebook. */
export interface BreakdownIds {
  tasks: string[];
  solved: string[];
  outOfBudget: string[];
  wrongPatch: string[];
  noPatch: string[];
  loops: string[];
  loopsFinishLength: string[];
  loopsRepeatedLine: string[];
  badPrefix: string[];
  noFile: string[];
  /** Tasks in the task list without a trajectory in this run. */
  missing: string[];
}

/** One row of the failure breakdown (docs/definitions.md §8). */
export interface BreakdownRow {
  run: string;
  tasks: number;
  solved: number;
  outOfBudget: number;
  wrongPatch: number;
  noPatch: number;
  /** Median counted tool calls per task (tasks with a trajectory); null when none. */
  medianCalls: number | null;
  /** Tasks with a loop output of either kind. */
  loops: number;
  /** Tasks with an output cut at the output-token limit. */
  loopsFinishLength: number;
  /** Tasks with an output repeating one line N times. */
  loopsRepeatedLine: number;
  /** Seconds spent on the loop outputs, where times exist (null when none could be timed). */
  loopSeconds: number | null;
  /** Completion tokens of the loop outputs, where usage exists. */
  loopTokens: number | null;
  badPrefix: number;
  noFile: number;
  missing: number;
  /** Null for the base itself, or without a base. */
  vsBase: VsBase | null;
  perCategory: Record<OutcomeCategory, CategoryCost>;
  /** How many tasks each budget rule put out of budget (solved ones included, before the partition). */
  budgetRules: Record<string, number>;
  /** Exit statuses as logged ("(none)" when missing), over the tasks with a trajectory. */
  exitStatuses: Record<string, number>;
  ids: BreakdownIds;
}

function spread(values: number[]): Spread {
  return { total: values.reduce((sum, x) => sum + x, 0), median: median(values), tasks: values.length };
}

function tokensOf(task: TaskSummary): number | null {
  if (task.promptTokens === null && task.completionTokens === null) return null;
  return (task.promptTokens ?? 0) + (task.completionTokens ?? 0);
}

/**
 * One run's row of the failure breakdown over `taskIds` (default: the tasks it has
 * trajectories for), without the comparison to a base (breakdownRuns adds it). Pure.
 *
 * Columns: tasks; the outcome partition solved / outOfBudget / wrongPatch / noPatch
 * (taskOutcomeCategory); medianCalls (countedCalls); loops, by finish_reason and by repeated
 * line (loopOutputs), with their time and tokens; badPrefix (badPaths non-empty); noFile
 * (≥ noFileThreshold "No such file" observations, default 5); time, tokens and cost per
 * category; the ids of every column.
 */
export function breakdownRun(
  run: RunInput,
  options: BreakdownOptions & { taskIds?: readonly string[] } = {},
): Omit<BreakdownRow, "vsBase"> {
  const byId = new Map(run.summaries.map((task) => [task.instanceId, task]));
  const taskIds = options.taskIds ? [...new Set(options.taskIds)] : [...byId.keys()];
  const threshold = options.noFileThreshold ?? DEFAULT_BREAKDOWN_OPTIONS.noFileThreshold;
  const ids: BreakdownIds = {
    tasks: taskIds,
    solved: [],
    outOfBudget: [],
    wrongPatch: [],
    noPatch: [],
    loops: [],
    loopsFinishLength: [],
    loopsRepeatedLine: [],
    badPrefix: [],
    noFile: [],
    missing: [],
  };
  const calls: number[] = [];
  const costs = Object.fromEntries(
    OUTCOME_CATEGORIES.map((c) => [c, { seconds: [] as number[], tokens: [] as number[], costUsd: [] as number[] }]),
  ) as Record<OutcomeCategory, { seconds: number[]; tokens: number[]; costUsd: number[] }>;
  const budgetRules: Record<string, number> = {};
  const exitStatuses: Record<string, number> = {};
  let loopSeconds: number | null = null;
  let loopTokens: number | null = null;
  for (const id of taskIds) {
    const task = byId.get(id);
    const category = taskOutcomeCategory(task, run.resolved.has(id), options);
    ids[category].push(id);
    if (!task) {
      ids.missing.push(id);
      continue;
    }
    const status = task.exitStatus ?? "(none)";
    exitStatuses[status] = (exitStatuses[status] ?? 0) + 1;
    const budget = budgetExit(task, options);
    if (budget) budgetRules[budget.rule] = (budgetRules[budget.rule] ?? 0) + 1;
    calls.push(countedCalls(task, options.calls));
    const loops = loopOutputs(task, options);
    if (loops.all.length > 0) ids.loops.push(id);
    if (loops.finishLength.length > 0) ids.loopsFinishLength.push(id);
    if (loops.repeatedLine.length > 0) ids.loopsRepeatedLine.push(id);
    for (const output of loops.all) {
      if (output.seconds !== undefined) loopSeconds = (loopSeconds ?? 0) + output.seconds;
      if (output.completionTokens !== undefined) loopTokens = (loopTokens ?? 0) + output.completionTokens;
    }
    if (badPaths(task, options).length > 0) ids.badPrefix.push(id);
    if (task.noFileObservations >= threshold) ids.noFile.push(id);
    const cost = costs[category];
    if (task.seconds !== null) cost.seconds.push(task.seconds);
    const tokens = tokensOf(task);
    if (tokens !== null) cost.tokens.push(tokens);
    if (task.costUsd !== null) cost.costUsd.push(task.costUsd);
  }
  const perCategory = Object.fromEntries(
    OUTCOME_CATEGORIES.map((c) => [
      c,
      {
        tasks: ids[c].length,
        seconds: spread(costs[c].seconds),
        tokens: spread(costs[c].tokens),
        costUsd: spread(costs[c].costUsd),
      },
    ]),
  ) as Record<OutcomeCategory, CategoryCost>;
  return {
    run: run.name,
    tasks: taskIds.length,
    solved: ids.solved.length,
    outOfBudget: ids.outOfBudget.length,
    wrongPatch: ids.wrongPatch.length,
    noPatch: ids.noPatch.length,
    medianCalls: median(calls),
    loops: ids.loops.length,
    loopsFinishLength: ids.loopsFinishLength.length,
    loopsRepeatedLine: ids.loopsRepeatedLine.length,
    loopSeconds,
    loopTokens,
    badPrefix: ids.badPrefix.length,
    noFile: ids.noFile.length,
    missing: ids.missing.length,
    perCategory,
    budgetRules,
    exitStatuses,
    ids,
  };
}
