import { parseSherlocLocations, sherlocFindingsText, sherlocTagContent } from "@loclab/schemas";
import { SHERLOC_TOOL_NAMES } from "@loclab/tools";
import type { ChatMessage, ChatToolCall, ToolDefinition } from "./chat-message.js";
import type { ToolProtocol } from "./tool-protocol.js";

/** The pseudo-tool a `<locations>` answer becomes, so the loop ends on it as on a submission. */
export const SHERLOC_ANSWER = "sherloc_answer";

/** SHERLOC's tools as listed to the loop (the prompt describes them in words: no schemas are sent). */
export const SHERLOC_TOOLS: readonly ToolDefinition[] = [
  ...SHERLOC_TOOL_NAMES.map((name) => ({ name, description: `SHERLOC's ${name}` })),
  { name: SHERLOC_ANSWER, description: "the final answer: a <findings> block, then a <locations> block" },
];

export type ParsedSherlocAnswer =
  | { ok: true; call: { name: string; arguments: Record<string, unknown> } }
  | { ok: false; kind: "missing" | "malformed"; problem: string };

/**
 * One answer read as SHERLOC's `DialogProcessor.extract_response` reads it (NVIDIA-NeMo/Skills
 * `recipes/sherloc`): a `<tool_call>` anywhere wins (its first block, closed or not, holding
 * one JSON object, either `{"<tool>": {arguments}}` or `{"tool": "<tool>", …arguments}`);
 * else a `<locations>` block is the final answer (its locations and the `<findings>` text);
 * else nothing. SHERLOC's further recoveries (Python dicts, XML-wrapped calls, guessing a
 * search from prose) are not replayed: such an answer is malformed here and the model is told.
 */
export function parseSherlocAnswer(content: string | null): ParsedSherlocAnswer {
  const text = content ?? "";
  if (text.includes("<tool_call>")) {
    const block = sherlocTagContent(text, "tool_call") ?? "";
    const value = parseJsonWithRecovery(block);
    if (value === undefined)
      return { ok: false, kind: "malformed", problem: "the <tool_call> block does not hold one JSON object" };
    const { tool, ...rest } = value;
    if (typeof tool === "string") return { ok: true, call: { name: tool, arguments: rest } };
    const keys = Object.keys(value);
    const inner = keys.length === 1 ? value[keys[0] as string] : undefined;
    if (keys.length === 1 && inner !== null && typeof inner === "object" && !Array.isArray(inner))
      return { ok: true, call: { name: keys[0] as string, arguments: inner as Record<string, unknown> } };
    return {
      ok: false,
      kind: "malformed",
      problem:
        'the <tool_call> object must have one key, the tool\'s name, holding its arguments: {"view_file": {"path": "…"}}',
    };
  }
  if (text.includes("<locations>")) {
    return {
      ok: true,
      call: {
        name: SHERLOC_ANSWER,
        arguments: { locations: parseSherlocLocations(text), findings: sherlocFindingsText(text) },
      },
    };
  }
  return { ok: false, kind: "missing", problem: "the answer has neither a <tool_call> block nor a <locations> block" };
}

/** JSON as SHERLOC's `_parse_json_with_recovery` takes it: as is, else the first balanced `{…}`, else up to the last `}`. */
function parseJsonWithRecovery(text: string): Record<string, unknown> | undefined {
  const attempt = (candidate: string) => {
    try {
      const value: unknown = JSON.parse(candidate);
      return value !== null && typeof value === "object" && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  };
  const whole = attempt(text);
  if (whole) return whole;
  if (text.startsWith("{")) {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i += 1) {
      const char = text[i];
      if (inString) {
        if (char === "\\") i += 1;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === "{") depth += 1;
      else if (char === "}" && --depth === 0) {
        const prefix = attempt(text.slice(0, i + 1));
        if (prefix) return prefix;
        break;
      }
    }
  }
  const last = text.lastIndexOf("}");
  return last > 0 ? attempt(text.slice(0, last + 1)) : undefined;
}

// Observations are plain user messages here, told apart by identity (context truncation cuts them).
const observations = new WeakSet<ChatMessage>();

/**
 * SHERLOC's text protocol (docs/definitions.md §1, "the sherloc profile"): no `tools` are
 * sent; calls are `<tool_call>` JSON blocks; the final answer is `<findings>` + `<locations>`;
 * a tool's output comes back as a user message holding exactly that output.
 */
export const SHERLOC_PROTOCOL: ToolProtocol = {
  mode: "sherloc",
  decoding: "free",
  systemTemplate: "system-sherloc",
  describeTools: (tools) => tools.map((tool) => `- \`${tool.name}\``).join("\n"),
  request: (messages) => ({ messages: [...messages] }),
  readCalls: (message, turn) => {
    const parsed = parseSherlocAnswer(message.content);
    if (!parsed.ok) return { calls: [], problem: { kind: parsed.kind, problem: parsed.problem } };
    const call: ChatToolCall = {
      id: `sherloc_${turn}`,
      name: parsed.call.name,
      arguments: JSON.stringify(parsed.call.arguments),
    };
    return { calls: [call] };
  },
  assistantMessage: (message) => ({ role: "assistant", content: message.content ?? "" }),
  observationMessage: (_call, observation) => {
    const message: ChatMessage = { role: "user", content: observation };
    observations.add(message);
    return message;
  },
  isObservation: (message) =>
    observations.has(message) || (message.role === "user" && message.content.startsWith("[observation of ")),
  nudge: (problem) =>
    `Error: ${problem.problem}. Each turn, either call one tool inside <tool_call>...</tool_call> as {"<tool>": {arguments}}, or give your final answer as a <findings> block and a <locations> block.`,
};
