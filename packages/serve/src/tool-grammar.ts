import type { GbnfJsonSchema } from "node-llama-cpp";

/** An OpenAI function tool as a request carries it. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** How the model may answer: `auto` (a tool call or text), `required` (a tool call), one named tool, or `none`. */
export type ToolChoice = "auto" | "required" | "none" | { type: "function"; function: { name: string } };

/**
 * Converts a tool's JSON Schema to the subset node-llama-cpp's JSON grammar understands
 * (types, properties, items, enum, const, descriptions; bounds such as `minimum` and
 * `minLength` are left to the caller's own validation). That grammar makes every listed
 * property required, so an optional property becomes "the value or null" and
 * {@link dropNullOptionals} removes the nulls afterwards: the model may leave it out in effect.
 */
export function toGrammarSchema(schema: unknown, where = "parameters"): GbnfJsonSchema {
  if (
    schema === undefined ||
    schema === true ||
    (typeof schema === "object" && schema !== null && Object.keys(schema).length === 0)
  ) {
    return { type: "object", additionalProperties: false, properties: {} } as GbnfJsonSchema;
  }
  if (typeof schema !== "object" || schema === null) throw new Error(`${where}: not a JSON Schema object`);
  const node = schema as Record<string, unknown>;
  const description = typeof node.description === "string" ? { description: node.description } : {};
  if ("const" in node) return { const: node.const as string, ...description } as GbnfJsonSchema;
  if (Array.isArray(node.enum)) return { enum: node.enum as string[], ...description } as GbnfJsonSchema;
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (Array.isArray(union))
    return {
      oneOf: union.map((item, i) => toGrammarSchema(item, `${where}.anyOf[${i}]`)),
      ...description,
    } as GbnfJsonSchema;
  const type = node.type;
  if (Array.isArray(type))
    return { oneOf: type.map((t) => toGrammarSchema({ ...node, type: t }, where)), ...description } as GbnfJsonSchema;
  switch (type) {
    case "string":
      // Length bounds are kept: a constrained call's strings are bounded so that it closes
      // within its token budget (docs/definitions.md §1); dropping them would let a small model
      // repeat inside one string until the answer is cut.
      return { type, ...bounds(node, "minLength", "maxLength", where), ...description } as GbnfJsonSchema;
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return { type, ...description } as GbnfJsonSchema;
    case "array":
      return {
        type: "array",
        items: toGrammarSchema(node.items ?? {}, `${where}.items`),
        ...bounds(node, "minItems", "maxItems", where),
        ...description,
      } as GbnfJsonSchema;
    case "object":
    case undefined: {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
      const converted: Record<string, GbnfJsonSchema> = {};
      for (const [name, value] of Object.entries(properties)) {
        const inner = toGrammarSchema(value, `${where}.properties.${name}`);
        converted[name] = required.has(name) ? inner : ({ oneOf: [inner, { type: "null" }] } as GbnfJsonSchema);
      }
      return { type: "object", properties: converted, additionalProperties: false, ...description } as GbnfJsonSchema;
    }
    default:
      throw new Error(`${where}: JSON Schema type ${JSON.stringify(type)} is not supported`);
  }
}

/** The schema's `low`/`high` bounds that are set, each a non-negative integer (else an error naming where). */
function bounds(node: Record<string, unknown>, low: string, high: string, where: string): Record<string, number> {
  const kept: Record<string, number> = {};
  for (const key of [low, high]) {
    const value = node[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
      throw new Error(`${where}.${key}: must be a non-negative integer, not ${JSON.stringify(value)}`);
    kept[key] = value;
  }
  return kept;
}

/** Removes the properties the model set to null where the tool's schema does not require them (see {@link toGrammarSchema}). */
export function dropNullOptionals(value: unknown, schema: unknown): unknown {
  if (
    typeof value !== "object" ||
    value === null ||
    Array.isArray(value) ||
    typeof schema !== "object" ||
    schema === null
  )
    return value;
  const node = schema as Record<string, unknown>;
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) {
    // The alternative the value is: the first whose `const` properties it has (a tool call's name).
    const chosen = union.find((alternative) => constsMatch(value as Record<string, unknown>, alternative));
    return chosen === undefined ? value : dropNullOptionals(value, chosen);
  }
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (inner === null && !required.has(key)) continue;
    out[key] = dropNullOptionals(inner, properties[key]);
  }
  return out;
}

function constsMatch(value: Record<string, unknown>, alternative: unknown): boolean {
  if (typeof alternative !== "object" || alternative === null) return false;
  const properties = ((alternative as Record<string, unknown>).properties ?? {}) as Record<string, unknown>;
  const consts = Object.entries(properties).filter(
    ([, inner]) => typeof inner === "object" && inner !== null && "const" in inner,
  );
  return consts.length > 0 && consts.every(([key, inner]) => value[key] === (inner as { const: unknown }).const);
}

/**
 * The answer grammar for a request with tools, for a chat template that has no tool syntax of
 * its own: one JSON object, either a call `{"name": <tool>, "arguments": {…}}` or, when the
 * choice allows text, `{"content": "…"}`. One call per turn (no parallel tool calls).
 */
export function toolAnswerSchema(tools: readonly FunctionTool[], choice: ToolChoice): GbnfJsonSchema {
  const chosen =
    typeof choice === "object" ? tools.filter((tool) => tool.function.name === choice.function.name) : tools;
  const calls = chosen.map(
    (tool) =>
      ({
        type: "object",
        properties: {
          name: { const: tool.function.name },
          arguments: toGrammarSchema(tool.function.parameters, `tools[${tool.function.name}].parameters`),
        },
        additionalProperties: false,
      }) as GbnfJsonSchema,
  );
  const text = {
    type: "object",
    properties: { content: { type: "string" } },
    additionalProperties: false,
  } as GbnfJsonSchema;
  const options = choice === "auto" ? [...calls, text] : calls;
  return (options.length === 1 ? options[0] : { oneOf: options }) as GbnfJsonSchema;
}

/** The instructions that tell the model about the tools and the answer format, for the system message. */
export function toolInstructions(tools: readonly FunctionTool[], choice: ToolChoice): string {
  const list = tools
    .map(
      (tool) =>
        `- ${tool.function.name}: ${tool.function.description ?? ""}\n  arguments (JSON Schema): ${JSON.stringify(tool.function.parameters ?? {})}`,
    )
    .join("\n");
  const how =
    choice === "auto"
      ? 'Answer with one JSON object: {"name": "<tool>", "arguments": {...}} to call a tool, or {"content": "<text>"} to reply without one.'
      : 'Answer with one JSON object: {"name": "<tool>", "arguments": {...}} to call a tool.';
  return `You can call these tools:\n${list}\n${how}`;
}

export type ParsedAnswer =
  | { kind: "call"; name: string; arguments: unknown }
  | { kind: "text"; content: string }
  | { kind: "unparsed"; text: string };

/** Reads the grammar-constrained answer; an answer cut short (max tokens) does not parse and stays text. */
export function parseToolAnswer(text: string, tools: readonly FunctionTool[]): ParsedAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "unparsed", text };
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    if (typeof object.name === "string" && "arguments" in object) {
      const tool = tools.find((candidate) => candidate.function.name === object.name);
      return {
        kind: "call",
        name: object.name,
        arguments: dropNullOptionals(object.arguments, tool?.function.parameters),
      };
    }
    if (typeof object.content === "string") return { kind: "text", content: object.content };
  }
  return { kind: "unparsed", text };
}
