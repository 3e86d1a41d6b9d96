import { z } from "zod";

// Request bodies of the routes `loclab serve` answers, with vLLM's field names and defaults.
// Fields vLLM accepts and this server does not act on pass through unread (loose objects);
// fields whose meaning it cannot honour (n > 1, stream) are refused with a clear 400.

const stop = z.union([z.string(), z.array(z.string()).max(16)]).nullish();

const samplingFields = {
  model: z.string().min(1),
  temperature: z.number().min(0).max(10).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  seed: z.number().int().nullish(),
  max_tokens: z.number().int().min(0).nullish(),
  stop,
  n: z.literal(1).nullish(),
  ignore_eos: z.boolean().nullish(),
  stream: z.literal(false).nullish(),
};

const messageSchema = z.looseObject({
  role: z.string().min(1),
  content: z
    .union([z.string(), z.null(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))])
    .optional(),
  name: z.string().optional(),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().optional(),
        type: z.string().optional(),
        function: z.looseObject({ name: z.string(), arguments: z.string() }),
      }),
    )
    .optional(),
  tool_call_id: z.string().optional(),
});

export const functionToolSchema = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const chatCompletionRequestSchema = z.looseObject({
  ...samplingFields,
  messages: z.array(messageSchema).min(1),
  max_completion_tokens: z.number().int().min(1).nullish(),
  tools: z.array(functionToolSchema).nullish(),
  tool_choice: z
    .union([
      z.enum(["auto", "required", "none"]),
      z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
    ])
    .nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

export const completionRequestSchema = z.looseObject({
  ...samplingFields,
  prompt: z.union([z.string(), z.array(z.number().int().min(0)).min(1), z.array(z.string()).length(1)]),
  echo: z.boolean().nullish(),
  logprobs: z.number().int().min(0).max(20).nullish(),
  prompt_logprobs: z.number().int().min(0).max(20).nullish(),
});
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export const tokenizeRequestSchema = z.union([
  z.looseObject({ model: z.string().optional(), prompt: z.string(), add_special_tokens: z.boolean().default(true) }),
  z.looseObject({
    model: z.string().optional(),
    messages: z.array(messageSchema).min(1),
    add_generation_prompt: z.boolean().default(true),
    add_special_tokens: z.boolean().default(false),
    tools: z.array(functionToolSchema).nullish(),
    tool_choice: z
      .union([
        z.enum(["auto", "required", "none"]),
        z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
      ])
      .nullish(),
  }),
]);

export const detokenizeRequestSchema = z.looseObject({
  model: z.string().optional(),
  tokens: z.array(z.number().int().min(0)),
});

/** One readable line per problem: `messages[0].role: expected string`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((part, index) => (typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`))
        .join("");
      return `${path || "(body)"}: ${issue.message}`;
    })
    .join("; ");
}
