import { createHash } from "node:crypto";
import type { ChatToolCall, ToolDefinition } from "./chat-message.js";

/**
 * How a model's tool calls are decoded (docs/definitions.md §1, "tool-call decoding"):
 * - `free` (the default, as SHERLOC's and FGL's harnesses run): the model writes whatever it
 *   likes and the server's tool parser (or the text protocol) reads a call out of it, or none;
 * - `constrained`: the server is asked to decode only text that matches a JSON Schema of one
 *   valid call (`response_format: {type: "json_schema"}`, which vLLM's structured outputs and
 *   `loclab serve`'s grammar enforce), so every answer is a call of a listed tool with
 *   arguments of its schema. A small model that never emits its chat format's call syntax
 *   still calls tools; what it calls, and with what values, stays its own.
 */
export type ToolCallDecoding = "free" | "constrained";

/** The JSON Schema a request asks the server to decode by (`response_format`'s `json_schema`). */
export interface ResponseSchema {
  name: string;
  schema: Record<string, unknown>;
}

/**
 * One call as a JSON object, `{"name": <tool>, "arguments": {…}}` — the shape of hermes' and
 * Qwen's `<tool_call>` body and of `loclab serve`'s tool grammar — one alternative per tool.
 * Pure.
 */
export function toolCallSchema(tools: readonly ToolDefinition[]): ResponseSchema {
  return callSchema(tools, "name", "tool_call");
}

/**
 * The text protocol's call, `{"tool": <tool>, "arguments": {…}}` (prompts/system-text.md), as
 * the schema a constrained text-mode answer is decoded by. Pure.
 */
export function textToolCallSchema(tools: readonly ToolDefinition[]): ResponseSchema {
  return callSchema(tools, "tool", "text_tool_call");
}

/** One object per tool: its name a constant under `nameKey`, its arguments the tool's own schema. */
function callSchema(tools: readonly ToolDefinition[], nameKey: "name" | "tool", schemaName: string): ResponseSchema {
  if (tools.length === 0) throw new RangeError("a constrained tool call needs at least one tool");
  const alternatives = tools.map((tool) => ({
    type: "object",
    properties: {
      [nameKey]: { const: tool.name },
      arguments: tool.parameters ?? { type: "object", properties: {}, additionalProperties: false },
    },
    required: [nameKey, "arguments"],
    additionalProperties: false,
  }));
  return { name: schemaName, schema: alternatives.length === 1 ? alternatives[0]! : { anyOf: alternatives } };
}

/**
 * The call a constrained answer holds, or undefined when its text is not one (cut at the output
 * limit, or a server that ignored `response_format`): the loop then sees an answer with no call,
 * as it would unconstrained. The id is derived from the text and the turn, so a replayed
 * conversation has the same ids. Pure.
 */
export function readConstrainedCall(
  content: string | null,
  tools: readonly ToolDefinition[],
  turn: number,
): ChatToolCall | undefined {
  if (content === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const { name, arguments: args } = value as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string" || !tools.some((tool) => tool.name === name)) return undefined;
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  const id = `call_${createHash("sha256").update(`${turn}\n${content}`).digest("hex").slice(0, 24)}`;
  return { id, name, arguments: JSON.stringify(args) };
}
