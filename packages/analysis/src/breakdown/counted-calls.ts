import type { TaskSummary } from "../model/task-summary.js";
import { type CountedCalls, DEFAULT_BREAKDOWN_OPTIONS } from "./breakdown-options.js";

/**
 * The counted tool calls of a task: with `only`, the calls of those tools; otherwise every call
 * but those of `except` (default submit, submit_patch, get_status: handing in the patch and
 * asking for status are not work, as in the FGL harness, docs/definitions.md §8).
 *
 * @example countedCalls({ toolCalls: { bash: 40, submit: 1 } } as TaskSummary) // 40
 */
export function countedCalls(task: Pick<TaskSummary, "toolCalls">, calls: CountedCalls = {}): number {
  const only = calls.only ? new Set(calls.only) : undefined;
  const except = new Set(calls.except ?? DEFAULT_BREAKDOWN_OPTIONS.calls.except);
  let total = 0;
  for (const [name, count] of Object.entries(task.toolCalls)) {
    if (only ? only.has(name) : !except.has(name)) total += count;
  }
  return total;
}
