import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { ChatCompletionRequest } from "./chat-completion-request.js";
import { chatCompletionResponseSchema } from "./chat-completion-response.js";
import type { AssistantMessage, ChatMessage, FinishReason, TokenUsage, ToolDefinition } from "./chat-message.js";
import { classifyModelError } from "./classify-model-error.js";
import { ModelRequestError, ModelTransportError, type RetryRecord } from "./model-errors.js";
import { fromWireCompletion, toWireMessages, toWireTools } from "./wire-format.js";

export interface ModelClientOptions {
  /** An OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1` for vLLM. */
  baseURL: string;
  model: string;
  /** Name of the environment variable holding the API key (read once, at creation). */
  apiKeyEnv?: string;
  temperature?: number;
  seed?: number;
  /** Sent as `max_tokens`, which vLLM and OpenAI both accept. */
  maxOutputTokens?: number;
  /** Per attempt. Defaults to 10 minutes, the `openai` package's own default. */
  timeoutMs?: number;
  /** Retries after the first attempt, for transport faults only. */
  maxRetries?: number;
  /** Wait before the first retry; doubles each retry, capped at one minute. */
  backoffMs?: number;
}

export interface CompleteRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[];
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
}

export interface ModelClient {
  readonly model: string;
  readonly baseURL: string;
  complete(request: CompleteRequest): Promise<Completion>;
}

/** Local servers (vLLM, llama.cpp) need no key, but the `openai` package insists on one. */
const placeholderApiKey = "unused";
const maxBackoffMs = 60_000;

/**
 * A chat-completions client for the localizer, over the `openai` package. The package's own
 * retries are switched off and done here instead, so that every transport fault (5xx,
 * timeout, dropped connection, unparsable body) is recorded in the result's `retries` —
 * a run log must show them, and they must never reach the model as if it had said something.
 * After the last retry it throws `ModelTransportError`; an HTTP 4xx throws `ModelRequestError`
 * at once. The API key never appears in a message, an error or a returned object: it lives only
 * inside the `openai` instance, and any error text is scrubbed of it.
 *
 * @example
 * const client = createModelClient({ baseURL: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen3-8B", seed: 1 });
 * const { message, usage } = await client.complete({ messages: [{ role: "user", content: "hi" }] });
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const maxRetries = options.maxRetries ?? 3;
  const backoffMs = options.backoffMs ?? 1_000;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError("maxRetries must be a non-negative integer");
  if (!(backoffMs >= 0)) throw new RangeError("backoffMs must be non-negative");

  const secret = process.env[options.apiKeyEnv ?? "OPENAI_API_KEY"] || undefined;
  const redact = (text: string): string => (secret === undefined ? text : text.split(secret).join("[redacted]"));
  const openai = new OpenAI({
    baseURL: options.baseURL,
    apiKey: secret ?? placeholderApiKey,
    maxRetries: 0,
    timeout: options.timeoutMs ?? 600_000,
    logLevel: "off",
  });

  async function complete(request: CompleteRequest): Promise<Completion> {
    const started = performance.now();
    const body: ChatCompletionRequest = {
      model: options.model,
      messages: toWireMessages(request.messages),
      ...(request.tools && request.tools.length > 0 ? { tools: toWireTools(request.tools) } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.maxOutputTokens !== undefined ? { max_tokens: options.maxOutputTokens } : {}),
    };
    const retries: RetryRecord[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        // Our wire types are a validated subset of the package's; the cast only bridges the two.
        const raw: unknown = await openai.chat.completions.create(body as unknown as ChatCompletionCreateParamsNonStreaming);
        const parsed = fromWireCompletion(chatCompletionResponseSchema.parse(raw));
        return { ...parsed, retries, latencyMs: performance.now() - started };
      } catch (error) {
        const classified = classifyModelError(error);
        if (classified.kind === "unknown") throw error;
        if (classified.kind === "request") {
          throw new ModelRequestError({ status: classified.status, message: redact(classified.message) });
        }
        const message = redact(classified.message);
        if (attempt > maxRetries) {
          throw new ModelTransportError({ errorClass: classified.errorClass, message, attempts: attempt, retries });
        }
        const waitedMs = Math.min(backoffMs * 2 ** (attempt - 1), maxBackoffMs);
        retries.push({ attempt, error: classified.errorClass, message, waitedMs });
        await new Promise((resolve) => setTimeout(resolve, waitedMs));
      }
    }
  }

  return { model: options.model, baseURL: options.baseURL, complete };
}
