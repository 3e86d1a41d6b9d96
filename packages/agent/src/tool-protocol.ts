import type { AssistantMessage, ChatMessage, ChatToolCall, ToolDefinition } from "./chat-message.js";
import type { CompleteRequest } from "./model-client.js";
import { parseTextToolCall } from "./text-tool-call.js";
import { textToolCallSchema, type ToolCallDecoding } from "./tool-call-decoding.js";

/** How tool calls travel between the loop and the model. */
export type ToolMode = "native" | "text";

/** What went wrong with the calls of an answer, for the nudge the loop sends back. */
export type CallProblem = { kind: "missing" | "malformed"; problem: string };

/**
 * One way of talking tools with a model. The loop is the same for both modes; only these five
 * things differ, so the two modes live side by side here instead of interleaved in the loop.
 */
export interface ToolProtocol {
  /** `sherloc`: SHERLOC's text protocol (sherloc-protocol.ts), the `sherloc` profile's. */
  mode: ToolMode | "sherloc";
  /** How the answer is decoded (tool-call-decoding.ts); `free` for SHERLOC's protocol. */
  decoding: ToolCallDecoding;
  /** The system prompt template (prompts/<name>.md). */
  systemTemplate: "system" | "system-text" | "system-sherloc";
  /** How the tools are listed in the system prompt. */
  describeTools(tools: readonly ToolDefinition[]): string;
  /** The request for one turn, offering `offered`. */
  request(messages: readonly ChatMessage[], offered: readonly ToolDefinition[]): CompleteRequest;
  /** The calls of an answer and, when the answer's calls could not be read, why; `turn` is the 0-based model call. */
  readCalls(message: AssistantMessage, turn: number): { calls: ChatToolCall[]; problem?: CallProblem };
  /** The answer as it goes into the conversation. */
  assistantMessage(message: AssistantMessage, calls: readonly ChatToolCall[]): ChatMessage;
  /** A tool's result as it goes into the conversation. */
  observationMessage(call: ChatToolCall, observation: string): ChatMessage;
  /** Whether a message of the conversation is a tool's result (what context truncation may cut). */
  isObservation(message: ChatMessage): boolean;
  /** The nudge after an answer whose calls were missing or malformed. */
  nudge(problem: CallProblem): string;
}

const EVERY_TURN = "Every turn must call a tool";

/** Native tool calling: tools in the request's `tools` field, calls and results as tool messages. */
export const NATIVE_PROTOCOL: ToolProtocol = {
  mode: "native",
  decoding: "free",
  systemTemplate: "system",
  describeTools: (tools) => tools.map((tool) => `- \`${tool.name}\`: ${tool.description ?? ""}`).join("\n"),
  request: (messages, offered) => ({ messages: [...messages], tools: [...offered] }),
  readCalls: (message) =>
    message.toolCalls.length > 0
      ? { calls: message.toolCalls }
      : { calls: [], problem: { kind: "missing", problem: "the answer called no tool" } },
  assistantMessage: (message, calls) => ({
    role: "assistant",
    content: message.content,
    ...(calls.length > 0 ? { toolCalls: [...calls] } : {}),
  }),
  observationMessage: (call, observation) => ({ role: "tool", toolCallId: call.id, content: observation }),
  isObservation: (message) => message.role === "tool",
  nudge: () =>
    `Error: your answer called no tool. ${EVERY_TURN}: explore with the tools, or hand in the answer with submit_localization.`,
};

/**
 * Text tool calling, for servers without a tool-call parser: no `tools` are sent; the system
 * prompt (prompts/system-text.md) lists each tool with its JSON Schema and asks for one
 * ```json block `{"tool", "arguments"}` per turn; results come back as user messages. Native
 * calls a server sends anyway are ignored.
 */
const TEXT_RESULT_PREFIX = "Result of ";
export const TEXT_PROTOCOL: ToolProtocol = {
  mode: "text",
  decoding: "free",
  systemTemplate: "system-text",
  describeTools: (tools) =>
    tools
      .map(
        (tool) =>
          `- \`${tool.name}\`: ${tool.description ?? ""}\n  Parameters: ${JSON.stringify(tool.parameters ?? {})}`,
      )
      .join("\n"),
  request: (messages) => ({ messages: [...messages] }),
  readCalls: (message, turn) => {
    const parsed = parseTextToolCall(message.content);
    return parsed.ok
      ? { calls: [{ id: `text_${turn}`, name: parsed.name, arguments: parsed.arguments }] }
      : { calls: [], problem: { kind: parsed.kind, problem: parsed.problem } };
  },
  assistantMessage: (message) => ({ role: "assistant", content: message.content ?? "" }),
  observationMessage: (call, observation) => ({
    role: "user",
    content: `${TEXT_RESULT_PREFIX}${call.name}:\n${observation}`,
  }),
  isObservation: (message) =>
    message.role === "user" &&
    (message.content.startsWith(TEXT_RESULT_PREFIX) || message.content.startsWith("[observation of ")),
  nudge: (problem) =>
    problem.kind === "malformed"
      ? `Error: your tool call could not be read: ${problem.problem}. Write exactly one \`\`\`json block holding {"tool": "<name>", "arguments": {...}}.`
      : `Error: ${problem.problem}. ${EVERY_TURN}: write exactly one \`\`\`json block holding {"tool": "<name>", "arguments": {...}}; hand in the answer with the tool submit_localization.`,
};

/**
 * Native calls decoded by the schema of one call: the same conversation as native mode, the
 * request asking the server for a call (`constrainToolCall`), so every answer calls a tool.
 */
export const CONSTRAINED_NATIVE_PROTOCOL: ToolProtocol = {
  ...NATIVE_PROTOCOL,
  decoding: "constrained",
  request: (messages, offered) => ({ messages: [...messages], tools: [...offered], constrainToolCall: true }),
};

/**
 * Text calls decoded by the schema of `{"tool", "arguments"}`: the answer is that object
 * itself (no fence), which the text protocol's reader accepts as the turn's one call.
 */
export const CONSTRAINED_TEXT_PROTOCOL: ToolProtocol = {
  ...TEXT_PROTOCOL,
  decoding: "constrained",
  request: (messages, offered) => ({ messages: [...messages], responseSchema: textToolCallSchema(offered) }),
};

/** The protocol of a tool mode and decoding; anything else is refused with the choices. */
export function toolProtocol(mode: ToolMode, decoding: ToolCallDecoding = "free"): ToolProtocol {
  if (decoding !== "free" && decoding !== "constrained")
    throw new RangeError(`toolCalls must be "free" or "constrained", not ${JSON.stringify(decoding)}`);
  if (mode === "native") return decoding === "constrained" ? CONSTRAINED_NATIVE_PROTOCOL : NATIVE_PROTOCOL;
  if (mode === "text") return decoding === "constrained" ? CONSTRAINED_TEXT_PROTOCOL : TEXT_PROTOCOL;
  throw new RangeError(`toolMode must be "native" or "text", not ${JSON.stringify(mode)}`);
}
