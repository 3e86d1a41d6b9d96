import { createOpenAIHttpClient, type HttpProgress, type RetryRecord } from "@loclab/openai-http";
import type { ChatCompletionRequest } from "./chat-completion-request.js";
import { chatCompletionResponseSchema } from "./chat-completion-response.js";
import type { AssistantMessage, ChatMessage, FinishReason, TokenUsage, ToolDefinition } from "./chat-message.js";
import {
  boundStrings,
  constrainedStringChars,
  readConstrainedCall,
  type ResponseSchema,
  toolCallSchema,
} from "./tool-call-decoding.js";
import { fromWireCompletion, toWireMessages, toWireTools } from "./wire-format.js";

export interface ModelClientOptions {
  /** An OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1` for vLLM. */
  baseURL: string;
  model: string;
  /** Name of the environment variable holding the API key (read once, at creation). */
  apiKeyEnv?: string;
  temperature?: number;
  /** Nucleus sampling, sent as `top_p`. */
  topP?: number;
  seed?: number;
  /** Sent as `max_tokens`, which vLLM and OpenAI both accept. */
  maxOutputTokens?: number;
  /**
   * Per attempt, covering the whole answer (a server that trickles its body counts too).
   * Default 300 s. `timeoutMs` is the older name of the same option.
   */
  requestTimeoutMs?: number;
  timeoutMs?: number;
  /** The whole call, retries and waits included: no attempt starts or goes on past it. Default 900 s. */
  callDeadlineMs?: number;
  /** Told when the client waits: before each retry, and every `progressEveryMs` (default 30 s) while an attempt is in flight. */
  onProgress?: (event: ModelProgress) => void;
  progressEveryMs?: number;
  /** Source of the retry jitter, uniform in [0, 1); default `Math.random`. */
  jitter?: () => number;
  /** Retries after the first attempt, for transport faults and unparsable answers only. */
  maxRetries?: number;
  /** Wait before the first retry; doubles each retry, capped at one minute. */
  backoffMs?: number;
}

/** What the client is waiting for, for progress lines. */
export type ModelProgress = HttpProgress;

export interface CompleteRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[];
  /**
   * Constrained tool-call decoding (tool-call-decoding.ts): the server decodes only a call of
   * one of `tools` (`response_format` with {@link toolCallSchema}; `tool_choice: "none"`, so no
   * server-side parser is involved and the tools still reach the chat template), and the
   * answer's JSON comes back as a tool call. The model's text is kept as the message's content.
   */
  constrainToolCall?: boolean;
  /** The JSON Schema the whole answer is decoded by (`response_format`), for answers that are not tool calls (the judge's). */
  responseSchema?: ResponseSchema;
  /**
   * Cancels the call (the attempt's wall budget): the HTTP request in flight is aborted, so the
   * server sees its client go and can stop generating, and a retry wait is cut short. The call
   * then rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

export interface Completion {
  message: AssistantMessage;
  finishReason: FinishReason;
  /** Absent when the server reported none. */
  usage: TokenUsage | undefined;
  /** Transport faults that were retried on the way to this answer, in order. */
  retries: RetryRecord[];
  /** Wall time of the whole call, retries and waits included. */
  latencyMs: number;
  /**
   * Set when the answer stopped at the output limit with fewer tokens than `max_tokens` asked
   * for: the server shortened the limit itself. vLLM 0.32 does so, silently, when prompt +
   * `max_tokens` pass `max_model_len` (where `loclab serve` and OpenAI answer 400), so an answer
   * cut there is the context's doing, not the model's length; the loops say so in the step.
   */
  shortened?: { requested: number; granted: number; promptTokens: number };
}

export interface ModelClient {
  readonly model: string;
  readonly baseURL: string;
  complete(request: CompleteRequest): Promise<Completion>;
}

/**
 * A chat-completions client for the localizer, over `@loclab/openai-http` (one retry policy and
 * one error taxonomy for every model call loclab makes). Every transport fault (5xx, timeout,
 * dropped connection, unparsable body) is retried and recorded in the result's `retries` — a
 * run log must show them, and they must never reach the model as if it had said something.
 * After the last retry it throws `ModelTransportError` (or `ModelAnswerError` when the last
 * answer was not a chat completion); a 4xx refusal throws `ModelRequestError` at once. The API
 * key never appears in a message, an error or a returned object.
 *
 * @example
 * const client = createModelClient({ baseURL: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen3-8B", seed: 1 });
 * const { message, usage } = await client.complete({ messages: [{ role: "user", content: "hi" }] });
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const http = createOpenAIHttpClient({
    baseURL: options.baseURL,
    ...(options.apiKeyEnv !== undefined ? { apiKeyEnv: options.apiKeyEnv } : {}),
    retry: {
      maxRetries: options.maxRetries,
      backoffMs: options.backoffMs,
      jitter: options.jitter,
      requestTimeoutMs: options.requestTimeoutMs ?? options.timeoutMs,
      callDeadlineMs: options.callDeadlineMs,
    },
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.progressEveryMs !== undefined ? { progressEveryMs: options.progressEveryMs } : {}),
  });

  async function complete(request: CompleteRequest): Promise<Completion> {
    const tools = request.tools ?? [];
    const constrained = request.constrainToolCall === true && tools.length > 0;
    const schema = boundedSchema(constrained ? toolCallSchema(tools) : request.responseSchema, options.maxOutputTokens);
    const body: ChatCompletionRequest = {
      model: options.model,
      messages: toWireMessages(request.messages),
      ...(tools.length > 0 ? { tools: toWireTools(tools) } : {}),
      ...(constrained ? { tool_choice: "none" } : {}),
      ...(schema
        ? {
            response_format: {
              type: "json_schema",
              json_schema: { name: schema.name, schema: schema.schema, strict: true },
            },
          }
        : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.topP !== undefined ? { top_p: options.topP } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.maxOutputTokens !== undefined ? { max_tokens: options.maxOutputTokens } : {}),
    };
    const answered = await http.chat(
      body,
      (raw) => fromWireCompletion(chatCompletionResponseSchema.parse(raw)),
      request.signal ? { signal: request.signal } : {},
    );
    const value = constrained ? withConstrainedCall(answered.value, tools, request.messages.length) : answered.value;
    const used = value.usage;
    const requested = options.maxOutputTokens;
    const shortened =
      value.finishReason === "length" && used && requested !== undefined && used.completionTokens < requested
        ? { requested, granted: used.completionTokens, promptTokens: used.promptTokens }
        : undefined;
    return {
      ...redactCompletion(value, http.redact),
      ...(shortened ? { shortened } : {}),
      retries: answered.retries,
      latencyMs: answered.latencyMs,
    };
  }

  return { model: options.model, baseURL: http.baseURL, complete };
}

/** A constrained answer's JSON as the message's tool call (none when it is not one: cut short, or the schema was ignored). */
function withConstrainedCall<T extends { message: AssistantMessage; finishReason: string }>(
  completion: T,
  tools: readonly ToolDefinition[],
  turn: number,
): T {
  if (completion.message.toolCalls.length > 0) return completion;
  const call = readConstrainedCall(completion.message.content, tools, turn);
  if (!call) return completion;
  return {
    ...completion,
    message: { content: completion.message.content, toolCalls: [call] },
    finishReason: completion.finishReason === "length" ? "length" : "tool_calls",
  };
}

/** The step note of an answer the server cut short of `max_tokens` (see `Completion.shortened`). */
export function shortenedNote(shortened: NonNullable<Completion["shortened"]>): string {
  return `context: the server cut the answer at ${shortened.granted} of the ${shortened.requested} output tokens asked for (the prompt held ${shortened.promptTokens} tokens: prompt + max_tokens passed the window, and the server shortened max_tokens instead of refusing)`;
}

/** The answer with every secret removed from its text and its tool calls' arguments. */
function redactCompletion<T extends { message: AssistantMessage }>(completion: T, redact: (text: string) => string): T {
  const { message } = completion;
  return {
    ...completion,
    message: {
      content: message.content === null ? null : redact(message.content),
      toolCalls: message.toolCalls.map((call) => ({
        ...call,
        name: redact(call.name),
        arguments: redact(call.arguments),
      })),
    },
  };
}

/** A response schema's strings bounded by the answer's budget ({@link constrainedStringChars}). */
function boundedSchema(schema: ResponseSchema | undefined, maxOutputTokens: number | undefined) {
  const maxChars = constrainedStringChars(maxOutputTokens);
  if (!schema || maxChars === undefined) return schema;
  return { name: schema.name, schema: boundStrings(schema.schema, maxChars) as Record<string, unknown> };
}
