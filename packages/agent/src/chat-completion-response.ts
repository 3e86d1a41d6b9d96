import { z } from "zod";

/**
 * The part of a chat-completions response the client relies on. The `openai` package does not
 * validate responses; checking here turns a server that answers 200 with the wrong shape into
 * a recorded transport fault instead of an `undefined` deep inside the agent loop.
 */
export const chatCompletionResponseSchema = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number(),
  model: z.string(),
  choices: z
    .array(
      z.looseObject({
        index: z.number(),
        message: z.looseObject({
          role: z.literal("assistant"),
          content: z.string().nullable().optional(),
          tool_calls: z
            .array(
              z.looseObject({
                id: z.string(),
                type: z.literal("function"),
                function: z.looseObject({ name: z.string(), arguments: z.string() }),
              }),
            )
            .nullable()
            .optional(),
        }),
        finish_reason: z.string().nullable(),
      }),
    )
    .min(1),
  usage: z
    .looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })
    .nullable()
    .optional(),
});

export type ChatCompletionResponse = z.infer<typeof chatCompletionResponseSchema>;
