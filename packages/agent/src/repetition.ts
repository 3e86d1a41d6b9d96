import { lineRepeats, REPEATED_LINE_THRESHOLD } from "@loclab/schemas";
import type { ChatToolCall } from "./chat-message.js";

export { REPEATED_LINE_THRESHOLD } from "@loclab/schemas";

/**
 * The first non-blank line that occurs `threshold` or more times in a row, if any (the
 * trajectory contract's `lineRepeats`, which the failure breakdown reads too).
 *
 * @example repeatedLine("a\na\na\na\na\n", 5) // "a"
 */
export function repeatedLine(output: string, threshold = REPEATED_LINE_THRESHOLD): string | undefined {
  return lineRepeats(output, { threshold }).firstRepeated;
}

/** A call's identity for repeat detection: its name and its arguments with keys sorted. */
export function callKey(call: Pick<ChatToolCall, "name" | "arguments">): string {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    args = call.arguments;
  }
  return `${call.name}\u0000${JSON.stringify(sortKeys(args))}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, inner]) => [key, sortKeys(inner)]),
  );
}
