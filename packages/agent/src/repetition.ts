import type { ToolCall } from "./chat-message.js";

/** Lines repeated this many times in a row mark a looping output (as in @loclab/analysis). */
export const REPEATED_LINE_THRESHOLD = 5;

/**
 * The first non-blank line that occurs `threshold` or more times in a row, if any.
 *
 * @example repeatedLine("a\na\na\na\na\n", 5) // "a"
 */
export function repeatedLine(output: string, threshold = REPEATED_LINE_THRESHOLD): string | undefined {
  let previous: string | undefined;
  let run = 0;
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    run = line === previous ? run + 1 : 1;
    previous = line;
    if (run >= threshold) return line;
  }
  return undefined;
}

/** A call's identity for repeat detection: its name and its arguments with keys sorted. */
export function callKey(call: Pick<ToolCall, "name" | "arguments">): string {
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
