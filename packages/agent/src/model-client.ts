import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { ChatCompletionRequest } from "./chat-completion-request.js";
import { chatCompletionResponseSchema } from "./chat-completion-response.js";
import type { AssistantMessage, ChatMessage, FinishReason, TokenUsage, ToolDefinition } from "./chat-message.js";
import { classifyModelError } from "./classify-model-error.js";
import { ModelRequestError, ModelTransportError, type RetryRecord } from "./model-errors.js";
import { makeRedactor, urlCredentials, urlSecrets, urlWithoutCredentials } from "./redact.js";
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
  /** Retries after the first attempt, for transport faults only. */
  maxRetries?: number;
  /** Wait before the first retry; doubles each retry, capped at one minute. */
  backoffMs?: number;
}

/** What the client is waiting for, for progress lines. */
export type ModelProgress =
  | { kind: "waiting"; attempt: number; elapsedMs: number }
  | { kind: "retrying"; retry: RetryRecord };

export interface CompleteRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[];
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
}

export interface ModelClient {
  readonly model: string;
  readonly baseURL: string;
  complete(request: CompleteRequest): Promise<Completion>;
}

/** Local servers (vLLM, llama.cpp) need no key, but the `openai` package insists on one. */
const placeholderApiKey = "unused";
const maxBackoffMs = 60_000;
/** Retries wait up to a quarter longer than their base, so that many clients do not retry in step. */
const jitterFraction = 0.25;

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
  const requestTimeoutMs = options.requestTimeoutMs ?? options.timeoutMs ?? 300_000;
  const callDeadlineMs = options.callDeadlineMs ?? 900_000;
  const progressEveryMs = options.progressEveryMs ?? 30_000;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError("maxRetries must be a non-negative integer");
  if (!(backoffMs >= 0)) throw new RangeError("backoffMs must be non-negative");
  if (!(requestTimeoutMs > 0) || !(callDeadlineMs > 0))
    throw new RangeError("requestTimeoutMs and callDeadlineMs must be positive");

  const secret = process.env[options.apiKeyEnv ?? "OPENAI_API_KEY"] || undefined;
  // The key and any credentials in the URL never leave the client: not in outputs, errors or the recorded URL.
  const redact = makeRedactor([secret, ...urlSecrets(options.baseURL)]);
  const baseURL = urlWithoutCredentials(options.baseURL);
  // fetch refuses URLs with credentials: they go as HTTP Basic auth instead (unless a key is set).
  const credentials = urlCredentials(options.baseURL);
  const openai = new OpenAI({
    baseURL,
    apiKey: secret ?? placeholderApiKey,
    ...(credentials && secret === undefined
      ? { defaultHeaders: { Authorization: `Basic ${Buffer.from(credentials).toString("base64")}` } }
      : {}),
    maxRetries: 0,
    // Our own abort signal ends an attempt first (it also covers a trickling body).
    timeout: requestTimeoutMs + 60_000,
    logLevel: "off",
  });

  async function complete(request: CompleteRequest): Promise<Completion> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const body: ChatCompletionRequest = {
      model: options.model,
      messages: toWireMessages(request.messages),
      ...(request.tools && request.tools.length > 0 ? { tools: toWireTools(request.tools) } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.topP !== undefined ? { top_p: options.topP } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.maxOutputTokens !== undefined ? { max_tokens: options.maxOutputTokens } : {}),
    };
    const retries: RetryRecord[] = [];
    for (let attempt = 1; ; attempt++) {
      const budget = Math.min(requestTimeoutMs, callDeadlineMs - elapsed());
      if (request.signal?.aborted) throw abortReason(request.signal);
      const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(budget)));
      const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
      const ticker = options.onProgress
        ? setInterval(
            () => options.onProgress?.({ kind: "waiting", attempt, elapsedMs: Math.round(elapsed()) }),
            progressEveryMs,
          )
        : undefined;
      ticker?.unref();
      try {
        // Our wire types are a validated subset of the package's; the cast only bridges the two.
        const raw: unknown = await openai.chat.completions.create(
          body as unknown as ChatCompletionCreateParamsNonStreaming,
          { signal },
        );
        const parsed = fromWireCompletion(chatCompletionResponseSchema.parse(raw));
        return { ...redactCompletion(parsed, redact), retries, latencyMs: elapsed() };
      } catch (error) {
        if (request.signal?.aborted) throw abortReason(request.signal);
        const classified = classifyModelError(error);
        if (classified.kind === "unknown") throw error;
        if (classified.kind === "request") {
          throw new ModelRequestError({ status: classified.status, message: redact(classified.message), retries });
        }
        const deadlineHit = elapsed() >= callDeadlineMs - 1;
        const errorClass = classified.errorClass === "timeout" && deadlineHit ? "deadline" : classified.errorClass;
        const message = redact(
          errorClass === "deadline"
            ? `no answer within the call's deadline of ${Math.round(callDeadlineMs / 1000)} s`
            : classified.message,
        );
        const base = Math.max(Math.min(backoffMs * 2 ** (attempt - 1), maxBackoffMs), classified.retryAfterMs ?? 0);
        const waitedMs = Math.round(base * (1 + jitterFraction * (options.jitter ?? Math.random)()));
        if (attempt > maxRetries || errorClass === "deadline" || elapsed() + waitedMs >= callDeadlineMs) {
          throw new ModelTransportError({ errorClass, message, attempts: attempt, retries });
        }
        const retry = { attempt, error: errorClass, message, waitedMs };
        retries.push(retry);
        options.onProgress?.({ kind: "retrying", retry });
        await abortableWait(waitedMs, request.signal);
      } finally {
        if (ticker) clearInterval(ticker);
      }
    }
  }

  return { model: options.model, baseURL, complete };
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error("the model call was cancelled"), { name: "AbortError" });
}

/** Waits `ms`, or less when `signal` aborts (the caller checks the signal next). */
function abortableWait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
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
