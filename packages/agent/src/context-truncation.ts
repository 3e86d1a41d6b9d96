import type { ChatMessage } from "./chat-message.js";

/** Rough prompt size: 4 characters a token, the usual rule of thumb for English and code. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += (message.content ?? "").length;
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return Math.ceil(chars / 4);
}

/** The text an observation is shortened to. */
export function observationStub(chars: number): string {
  return `[observation of ${chars} characters removed to fit the context window]`;
}

/**
 * Context truncation: while the estimated prompt exceeds `limitTokens`, the oldest tool
 * observation is shortened to a stub. The system prompt and the issue (the first two
 * messages) and everything from the last `keepTurns` assistant turns on are never touched.
 * Returns the new list (the input is not changed) and how many observations were cut; it may
 * still exceed the limit when nothing old is left to cut.
 */
export function truncateOldObservations(messages: readonly ChatMessage[], options: { limitTokens: number; keepTurns?: number }): { messages: ChatMessage[]; truncated: number } {
  const out = [...messages];
  const keepTurns = options.keepTurns ?? 2;
  const assistantIndexes = out.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  const protectedFrom = assistantIndexes.length >= keepTurns ? (assistantIndexes[assistantIndexes.length - keepTurns] ?? out.length) : 0;
  let truncated = 0;
  for (let index = 2; index < protectedFrom && estimateTokens(out) > options.limitTokens; index++) {
    const message = out[index];
    if (message?.role !== "tool" || message.content.startsWith("[observation of ")) continue;
    out[index] = { ...message, content: observationStub(message.content.length) };
    truncated += 1;
  }
  return { messages: out, truncated };
}
