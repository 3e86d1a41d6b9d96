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
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  return chars;
}

/** Tokens per character before the server has told us any prompt's size: a little above 1/4, since code and chat templates cost more than prose. */
const DEFAULT_TOKENS_PER_CHAR = 0.3;

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
 * messages) are never touched, and the observations of the last `keepTurns` assistant turns
 * only when cutting every older one was not enough: then those too, oldest first, except the
 * newest observation, which as a last resort keeps only its beginning (`cutObservation`), so
 * that one large file view cannot overflow the window. Returns the new list (the input is not
 * changed), how many observations were cut or shortened; it may still exceed the limit when
 * the system prompt and the issue alone do.
 */
export function truncateOldObservations(
  messages: readonly ChatMessage[],
  options: {
    limitTokens: number;
    keepTurns?: number;
    estimate?: (messages: readonly ChatMessage[]) => number;
    isObservation?: (message: ChatMessage) => boolean;
  },
): { messages: ChatMessage[]; truncated: number } {
  const estimate = options.estimate ?? estimateTokens;
  // Native tool calling returns observations as tool messages; text tool calling as user messages (the protocol says which).
  const isObservation = options.isObservation ?? ((message: ChatMessage) => message.role === "tool");
  const out = [...messages];
  const over = () => estimate(out) > options.limitTokens;
  const keepTurns = options.keepTurns ?? 2;
  const assistantIndexes = out.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  const protectedFrom =
    assistantIndexes.length >= keepTurns ? (assistantIndexes[assistantIndexes.length - keepTurns] ?? out.length) : 0;
  const tools = out.flatMap((message, index) =>
    index >= 2 && isObservation(message) && !(message.content ?? "").startsWith("[observation of ") ? [index] : [],
  );
  let truncated = 0;
  const stub = (index: number) => {
    const message = out[index] as Extract<ChatMessage, { role: "tool" | "user" }>;
    out[index] = { ...message, content: observationStub(message.content.length) };
    truncated += 1;
  };
  for (const index of tools) {
    if (!over()) break;
    if (index < protectedFrom) stub(index);
  }
  const newest = tools.at(-1);
  for (const index of tools) {
    if (!over()) break;
    if (index >= protectedFrom && index !== newest) stub(index);
  }
  if (newest !== undefined && over()) {
    const message = out[newest] as Extract<ChatMessage, { role: "tool" | "user" }>;
    // The longest beginning that fits, found by bisection over the kept characters.
    let low = 0;
    let high = message.content.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      out[newest] = { ...message, content: cutObservation(message.content, middle) };
      if (over()) high = middle - 1;
      else low = middle;
    }
    out[newest] = { ...message, content: cutObservation(message.content, low) };
    truncated += 1;
  }
  return { messages: out, truncated };
}

/** An observation's first `keep` characters and a note of how many were cut. */
export function cutObservation(content: string, keep: number): string {
  return `${content.slice(0, keep)}\n[… ${content.length - keep} more characters of this observation cut to fit the context window]`;
}
