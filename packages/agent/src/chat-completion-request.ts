import { z } from "zod";

/**
 * The part of an OpenAI chat-completions request body the workbench sends, as a zod schema.
 * The scripted server validates against it, so a client that builds a bad body fails in tests
 * the way it would fail against vLLM (HTTP 400), not silently. Unknown fields pass through:
 * real servers accept many more options than we check.
 */
const wireToolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const wireMessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: z.string() }),
  z.looseObject({ role: z.literal("developer"), content: z.string() }),
  z.looseObject({ role: z.literal("user"), content: z.string() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.string().nullable().optional(),
    tool_calls: z.array(wireToolCallSchema).optional(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string().min(1), content: z.string() }),
]);

const wireToolSchema = z.object({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(wireMessageSchema).min(1),
  tools: z.array(wireToolSchema).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  seed: z.number().int().optional(),
  max_tokens: z.number().int().positive().optional(),
  tool_choice: z
    .union([
      z.enum(["auto", "required", "none"]),
      z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1) }) }),
    ])
    .optional(),
  /** Structured outputs (vLLM, `loclab serve`): the answer decoded by a JSON Schema. */
  response_format: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("text") }),
      z.object({ type: z.literal("json_object") }),
      z.object({
        type: z.literal("json_schema"),
        json_schema: z.looseObject({
          name: z.string().min(1),
          schema: z.record(z.string(), z.unknown()),
          strict: z.boolean().optional(),
        }),
      }),
    ])
    .optional(),
  stream: z.literal(false, { message: "streaming is not supported; send stream: false or omit it" }).optional(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type WireMessage = z.infer<typeof wireMessageSchema>;
