/**
 * The conversation as the agent sees it: typed messages, not the wire's snake_case dicts.
 * The agent loop's only state is this list (docs/definitions.md §1), so it is kept small and explicit;
 * `wire-format.ts` translates it to and from the OpenAI chat-completions shape.
 */

import type { ToolCall } from "@loclab/tools";

/**
 * One tool call the model asked for: a `ToolCall` of the tools package (name and arguments)
 * with the id the chat API gives it. `arguments` stays the raw string the model wrote, so a
 * malformed call can be reported back to the model instead of failing here.
 */
export interface ChatToolCall extends ToolCall {
  id: string;
  arguments: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ChatToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

/** A function tool offered to the model; `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  /**
   * The arguments' schema a constrained answer is decoded by, where it is narrower than
   * `parameters` (the submission's paths limited to the repository's files). Never sent as the
   * tool's schema: the model is told `parameters`, the server enforces this.
   */
  constrainedParameters?: Record<string, unknown>;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Why the model stopped. Servers may add their own reasons (vLLM: "abort"), hence the open string. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | (string & {});

/** What the model said in one turn. */
export interface AssistantMessage {
  content: string | null;
  toolCalls: ChatToolCall[];
}
