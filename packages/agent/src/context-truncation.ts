import type { ChatMessage } from "./chat-message.js";

/** Rough prompt size: 4 characters a token, the usual rule of thumb for English and code. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  return Math.ceil(messageChars(messages) / 4);
}

/** The characters of a conversation's text: contents, and the names and arguments of tool calls. */
export function messageChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += (message.content ?? "").length;
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return chars;
}

/** Tokens per character before the server has told us any prompt's size: a little above 1/4, since code and chat templates cost more than prose. */
export const DEFAULT_TOKENS_PER_CHAR = 0.3;

/**
 * A prompt-size estimator calibrated on the server's own counts: after each answer, the ratio
 * of its `prompt_tokens` to the characters sent (the tool schemas and chat template included,
 * so it errs high as the conversation grows), never below `DEFAULT_TOKENS_PER_CHAR` until a
 * count exists and never below 1/4 after. `extraChars`: text the request carries outside the
 * messages (the tool schemas of native tool calling).
 */
export class PromptEstimator {
  private tokensPerChar = DEFAULT_TOKENS_PER_CHAR;

  estimate(messages: readonly ChatMessage[], extraChars = 0): number {
    return Math.ceil((messageChars(messages) + extraChars) * this.tokensPerChar);
  }

  /** Learns from an answered request: its characters and the server's prompt-token count. */
  calibrate(chars: number, promptTokens: number): void {
    if (chars > 0 && promptTokens > 0) this.tokensPerChar = Math.max(0.25, promptTokens / chars);
  }
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
export function truncateOldObservations(messages: readonly ChatMessage[], options: { limitTokens: number; keepTurns?: number; estimate?: (messages: readonly ChatMessage[]) => number }): { messages: ChatMessage[]; truncated: number } {
  const estimate = options.estimate ?? estimateTokens;
  const out = [...messages];
  const keepTurns = options.keepTurns ?? 2;
  const assistantIndexes = out.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  const protectedFrom = assistantIndexes.length >= keepTurns ? (assistantIndexes[assistantIndexes.length - keepTurns] ?? out.length) : 0;
  let truncated = 0;
  for (let index = 2; index < protectedFrom && estimate(out) > options.limitTokens; index++) {
    const message = out[index];
    if (message?.role !== "tool" || message.content.startsWith("[observation of ")) continue;
    out[index] = { ...message, content: observationStub(message.content.length) };
    truncated += 1;
  }
  return { messages: out, truncated };
}
