/**
 * Text tool-calling (for servers without a tool-call parser): the model writes exactly one
 * JSON object `{"tool": name, "arguments": {...}}` in a fenced ```json block per turn. This
 * module finds and checks that block; what is wrong is said in words the model can act on.
 */

export type ParsedTextToolCall =
  | { ok: true; name: string; arguments: string }
  | { ok: false; kind: "missing" | "malformed"; problem: string };

const fencedJson = /```json[ \t]*\r?\n([\s\S]*?)```/gi;

/**
 * The one tool call in an answer's text. `arguments` is re-serialized JSON, so the rest of the
 * loop treats it like a native call's arguments string.
 *
 * @example parseTextToolCall('I will look.\n```json\n{"tool": "view_file", "arguments": {"path": "a.py"}}\n```')
 * // { ok: true, name: "view_file", arguments: '{"path":"a.py"}' }
 */
export function parseTextToolCall(content: string | null): ParsedTextToolCall {
  const blocks = [...(content ?? "").matchAll(fencedJson)].map((match) => match[1] ?? "");
  // A whole answer that is one JSON object is the call itself: what a schema-constrained
  // answer is (tool-call-decoding.ts), and what a model sometimes writes without the fence.
  const bare = (content ?? "").trim();
  if (blocks.length === 0 && bare.startsWith("{") && bare.endsWith("}")) blocks.push(bare);
  if (blocks.length === 0) {
    const unclosed = /```json/i.test(content ?? "");
    return {
      ok: false,
      kind: unclosed ? "malformed" : "missing",
      problem: unclosed
        ? "the ```json block is not closed with ```"
        : "the answer has no ```json block with a tool call",
    };
  }
  if (blocks.length > 1)
    return {
      ok: false,
      kind: "malformed",
      problem: `the answer has ${blocks.length} \`\`\`json blocks; write exactly one per turn`,
    };
  let value: unknown;
  try {
    value = JSON.parse(blocks[0]!);
  } catch (error) {
    return {
      ok: false,
      kind: "malformed",
      problem: `the \`\`\`json block is not valid JSON: ${(error as Error).message}`,
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { ok: false, kind: "malformed", problem: "the ```json block must hold one JSON object" };
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => key !== "tool" && key !== "arguments");
  if (typeof record.tool !== "string" || record.tool === "")
    return { ok: false, kind: "malformed", problem: 'the object needs a "tool" field: the tool\'s name as a string' };
  if (record.arguments === null || typeof record.arguments !== "object" || Array.isArray(record.arguments)) {
    return {
      ok: false,
      kind: "malformed",
      problem: 'the object needs an "arguments" field: a JSON object (use {} for none)',
    };
  }
  if (extra.length > 0)
    return {
      ok: false,
      kind: "malformed",
      problem: `the object may only have "tool" and "arguments", not ${extra.map((key) => JSON.stringify(key)).join(", ")}`,
    };
  return { ok: true, name: record.tool, arguments: JSON.stringify(record.arguments) };
}
