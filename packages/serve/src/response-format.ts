import type { GbnfJsonSchema } from "node-llama-cpp";
import { z } from "zod";
import { ApiError } from "./api-errors.js";
import { dropNullOptionals, toGrammarSchema } from "./tool-grammar.js";

/** `response_format` as vLLM takes it: plain text, any JSON object, or JSON of a schema. */
export const responseFormatSchema_ = z
  .discriminatedUnion("type", [
    z.looseObject({ type: z.literal("text") }),
    z.looseObject({ type: z.literal("json_object") }),
    z.looseObject({
      type: z.literal("json_schema"),
      json_schema: z.looseObject({
        name: z.string().optional(),
        schema: z.record(z.string(), z.unknown()),
        strict: z.boolean().nullish(),
      }),
    }),
  ])
  .nullish();

/** A response format as the engine decodes it: the grammar, and what is done to the text after. */
export interface DecodedFormat {
  grammar: GbnfJsonSchema;
  /** The answer as the client gets it. */
  finish(text: string): string;
}

/**
 * Structured outputs, as vLLM's `response_format` (docs/guide/real-model-and-vllm.md): a JSON
 * Schema decodes the answer by node-llama-cpp's JSON grammar. That grammar makes every listed
 * property required, so an optional one is "the value or null" (`toGrammarSchema`) and the
 * nulls are dropped from the answer afterwards: the client gets JSON valid against its own
 * schema. `json_object` is any JSON object; `text` (or none) decodes freely. An answer cut at
 * the output limit is returned as it is (it does not parse; `finish_reason` says `length`).
 */
export function responseFormatSchema(value: unknown): DecodedFormat | undefined {
  const parsed = responseFormatSchema_.safeParse(value);
  if (!parsed.success)
    throw new ApiError(
      400,
      `response_format: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(value)"}: ${issue.message}`).join("; ")}`,
      "BadRequestError",
      "response_format",
    );
  const format = parsed.data;
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { grammar: { type: "object" } as GbnfJsonSchema, finish: (text) => text };
  const schema = format.json_schema.schema;
  let grammar: GbnfJsonSchema;
  try {
    grammar = toGrammarSchema(schema, "response_format.json_schema.schema");
  } catch (error) {
    throw new ApiError(400, (error as Error).message, "BadRequestError", "response_format");
  }
  return {
    grammar,
    finish: (text) => {
      try {
        return JSON.stringify(dropNullOptionals(JSON.parse(text), schema));
      } catch {
        return text;
      }
    },
  };
}
