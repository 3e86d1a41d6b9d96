import type { FixerLimits } from "./fixer-limits.js";

/** The fixer's tools, and which of them count against the call budget (FGL: all but get_status and submit_patch). */
export const COUNTED_TOOLS = ["run_command", "read_file", "edit_file", "write_file"] as const;
export const UNCOUNTED_TOOLS = ["get_status", "submit_patch"] as const;

/** Whether a call of this tool is counted (the localizer's own calls are counted where it makes them). */
export function isCounted(tool: string): boolean {
  return (COUNTED_TOOLS as readonly string[]).includes(tool);
}

/**
 * The note appended to a tool result when `remaining` counted calls or fewer are left (FGL:
 * 10, for budgets of at least 20); none otherwise.
 */
export function budgetNote(
  remaining: number,
  limits: Pick<FixerLimits, "callBudget" | "warnWhenRemaining" | "warnMinBudget">,
): string | undefined {
  if (limits.callBudget < limits.warnMinBudget || remaining > limits.warnWhenRemaining) return undefined;
  if (remaining <= 0)
    return "[budget: no tool calls left; submit_patch now, or the current diff is taken as your patch]";
  return `[budget: ${remaining} tool call${remaining === 1 ? "" : "s"} left of ${limits.callBudget}; submit_patch when the fix is in]`;
}
