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
      arguments: tool.constrainedParameters ??
        tool.parameters ?? { type: "object", properties: {}, additionalProperties: false },
    },
    required: [nameKey, "arguments"],
    additionalProperties: false,
  }));
  return { name: schemaName, schema: alternatives.length === 1 ? alternatives[0]! : { anyOf: alternatives } };
}

/** The fewest characters a bounded string of a constrained answer may hold. */
export const MIN_CONSTRAINED_STRING_CHARS = 32;

/**
 * The longest string a constrained answer may hold when its budget is `maxOutputTokens`: a
 * quarter of the budget, in characters (at least {@link MIN_CONSTRAINED_STRING_CHARS}). A
 * token is at least one character, so no single string can fill the answer: a small model that
 * repeats itself inside a string ("function::function::…") is made to close it and go on, and
 * the call can end within the budget (docs/definitions.md §1). With no budget, no bound. Pure.
 */
export function constrainedStringChars(maxOutputTokens: number | undefined): number | undefined {
  if (maxOutputTokens === undefined) return undefined;
  return Math.max(MIN_CONSTRAINED_STRING_CHARS, Math.floor(maxOutputTokens / 4));
}

/**
 * `schema` with every string that has no `maxLength` of its own (and is not a constant or an
 * enumeration) bounded to `maxChars`; the tool's own bounds stay. A copy; pure.
 */
export function boundStrings(schema: unknown, maxChars: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => boundStrings(item, maxChars));
  if (schema === null || typeof schema !== "object") return schema;
  const node = schema as Record<string, unknown>;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, boundStrings(value, maxChars)]));
  const isString = node.type === "string" || (Array.isArray(node.type) && node.type.includes("string"));
  if (isString && node.maxLength === undefined && node.enum === undefined && node.const === undefined)
    copy.maxLength = maxChars;
  return copy;
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
