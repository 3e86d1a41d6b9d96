import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { CompletionCreateParamsNonStreaming } from "openai/resources/completions";
import { type ClassifiedModelError, classifyModelError } from "./classify-model-error.js";
import {
  apiKeyOf,
  authHeaders,
  type EndpointTarget,
  endpointRedactor,
  serverRoot,
  urlWithoutCredentials,
} from "./endpoint.js";
import { ModelAnswerError, ModelRequestError, ModelTransportError, type RetryRecord } from "./model-errors.js";
import { type RetryPolicy, retryPolicy, retryWaitMs } from "./retry-policy.js";

/** What the client is waiting for, for progress lines and for a pool's circuit breaker. */
export type HttpProgress =
  | { kind: "waiting"; attempt: number; elapsedMs: number }
  | { kind: "retrying"; retry: RetryRecord };

export interface OpenAIHttpOptions extends EndpointTarget {
  /** The client's policy; a call may override parts of it. */
  retry?: Partial<RetryPolicy>;
  /** Told before each retry, and every `progressEveryMs` (default 30 s) while an attempt is in flight. */
  onProgress?: (event: HttpProgress) => void;
  progressEveryMs?: number;
}

export interface CallOptions {
  /**
   * Cancels the call: the request in flight is aborted (so the server can stop generating) and
   * a retry wait is cut short. The call then rejects with the signal's reason.
   */
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** This call's progress (e.g. for the pool lease it runs on), told as well as the client's. */
  onProgress?: (event: HttpProgress) => void;
}

/** A parsed answer and what it took. */
export interface Answered<T> {
  value: T;
  /** The failed attempts that were retried on the way, in order. */
  retries: RetryRecord[];
  /** Wall time of the whole call, retries and waits included. */
  latencyMs: number;
}

/**
 * One endpoint's calls. `parse` turns the server's JSON into what the caller needs and runs
 * inside the retry loop: a `ZodError` or `SyntaxError` from it is an invalid answer that is
 * retried, a `ModelAnswerError` with `retryable: false` one that is not.
 */
export interface OpenAIHttpClient {
  /** The base URL without credentials, as it may be recorded. */
  readonly baseURL: string;
  /** Removes the key and the URL's credentials from a text (for answers a caller returns or records). */
  readonly redact: (text: string) => string;
  /** `POST {baseURL}/chat/completions`. */
  chat<T>(body: object, parse: (raw: unknown) => T, options?: CallOptions): Promise<Answered<T>>;
  /** `POST {baseURL}/completions`. */
  completions<T>(body: object, parse: (raw: unknown) => T, options?: CallOptions): Promise<Answered<T>>;
  /** `POST {server root}/tokenize` (vLLM serves it outside `/v1`). */
  tokenize<T>(body: object, parse: (raw: unknown) => T, options?: CallOptions): Promise<Answered<T>>;
}

/** Local servers (vLLM, llama.cpp) need no key, but the `openai` package insists on one. */
const PLACEHOLDER_API_KEY = "unused";

/**
 * The one OpenAI-compatible client of loclab, over the `openai` package with its own retries
 * off: every retry is done here so that it is recorded (a run log must show it) and classified
 * by one taxonomy (`model-errors.ts`). The API key is read once, here, from the environment; it
 * and any credentials in the URL (sent as HTTP Basic when no key is set: fetch refuses a URL
 * that carries them) never appear in an error, a recorded retry or the recorded URL.
 *
 * @example
 * const client = createOpenAIHttpClient({ baseURL: "http://127.0.0.1:8000/v1" });
 * const { value } = await client.tokenize({ model: "m", prompt: "hi" }, (raw) => (raw as { count: number }).count);
 */
export function createOpenAIHttpClient(options: OpenAIHttpOptions): OpenAIHttpClient {
  const policy = retryPolicy(options.retry);
  const secret = apiKeyOf(options);
  const redact = endpointRedactor(options);
  const baseURL = urlWithoutCredentials(options.baseURL);
  const openai = new OpenAI({
    baseURL,
    apiKey: secret ?? PLACEHOLDER_API_KEY,
    // Without a key, the URL's credentials as HTTP Basic (fetch refuses a URL that carries them).
    ...(secret === undefined ? { defaultHeaders: authHeaders(options) } : {}),
    maxRetries: 0,
    logLevel: "off",
  });
  const tokenizeURL = `${serverRoot(options.baseURL)}/tokenize`;
  /** One kind of call: its answer's name for messages, and how the package sends it. */
  const call =
    (answer: string, send: (body: object, request: { signal: AbortSignal; timeout: number }) => PromiseLike<unknown>) =>
    <T>(body: object, parse: (raw: unknown) => T, perCall: CallOptions = {}): Promise<Answered<T>> =>
      callWithRetries(
        {
          redact,
          answer,
          progressEveryMs: options.progressEveryMs ?? 30_000,
          policy: retryPolicy(policy, perCall.retry),
          onProgress: both(options.onProgress, perCall.onProgress),
        },
        (request) => send(body, request),
        parse,
        perCall.signal,
      );

  return {
    baseURL,
    redact,
    chat: call("chat completion", (body, request) =>
      openai.chat.completions.create(body as ChatCompletionCreateParamsNonStreaming, request),
    ),
    completions: call("completions answer", (body, request) =>
      openai.completions.create(body as CompletionCreateParamsNonStreaming, request),
    ),
    // An absolute path: the package sends it as is, with the same headers and errors.
    tokenize: call("tokenize answer", (body, request) => openai.post(tokenizeURL, { body, ...request })),
  };
}

interface LoopSettings {
  policy: RetryPolicy;
  redact: (text: string) => string;
  /** What a 200 should have held, for messages. */
  answer: string;
  onProgress: ((event: HttpProgress) => void) | undefined;
  progressEveryMs: number;
}

type Send = (request: { signal: AbortSignal; timeout: number }) => PromiseLike<unknown>;

/**
 * The retry loop. Each attempt gets `min(requestTimeoutMs, time left before the deadline)`
 * through an abort signal (which also stops a body that trickles in); an attempt stopped by the
 * deadline is `deadline` and not retried. When the retries run out, the error thrown is of the
 * last attempt's kind, with every earlier failed attempt in its `retries`.
 */
async function callWithRetries<T>(
  settings: LoopSettings,
  send: Send,
  parse: (raw: unknown) => T,
  callerSignal: AbortSignal | undefined,
): Promise<Answered<T>> {
  const { policy, redact } = settings;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const retries: RetryRecord[] = [];
  for (let attempt = 1; ; attempt++) {
    if (callerSignal?.aborted) throw abortReason(callerSignal);
    const budget = Math.max(1, Math.ceil(Math.min(policy.requestTimeoutMs, policy.callDeadlineMs - elapsed())));
    const timeout = AbortSignal.timeout(budget);
    const signal = callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout;
    const ticker = startTicker(settings, attempt, elapsed);
    try {
      // The package's own timeout only backs up our signal, which ends an attempt first.
      const raw = await send({ signal, timeout: budget + 60_000 });
      return { value: parse(raw), retries, latencyMs: elapsed() };
    } catch (error) {
      if (callerSignal?.aborted) throw abortReason(callerSignal);
      const classified = classifyModelError(error, settings.answer);
      if (classified.kind === "unknown") throw error;
      if (classified.kind === "request")
        throw new ModelRequestError({ status: classified.status, message: redact(classified.message), retries });
      const outcome = nextStep(classified, { policy, redact, attempt, elapsedMs: elapsed(), retries });
      if (outcome instanceof Error) throw outcome;
      const retry = outcome;
      retries.push(retry);
      settings.onProgress?.({ kind: "retrying", retry });
      await abortableWait(retry.waitedMs, callerSignal);
    } finally {
      if (ticker) clearInterval(ticker);
    }
  }
}

/** One listener from two, either of which may be absent. */
function both(
  first: ((event: HttpProgress) => void) | undefined,
  second: ((event: HttpProgress) => void) | undefined,
): ((event: HttpProgress) => void) | undefined {
  if (!first || !second) return first ?? second;
  return (event) => {
    first(event);
    second(event);
  };
}

/**
 * After a failed attempt: the retry to record (and wait for), or the error to throw when the
 * failure is not retryable, the retries are spent, or the wait would cross the call's deadline.
 */
function nextStep(
  classified: Exclude<ClassifiedModelError, { kind: "unknown" | "request" }>,
  at: {
    policy: RetryPolicy;
    redact: (text: string) => string;
    attempt: number;
    elapsedMs: number;
    retries: RetryRecord[];
  },
): RetryRecord | Error {
  const { policy, attempt, retries } = at;
  if (classified.kind === "invalid-answer") {
    const message = at.redact(classified.message);
    const waitedMs = retryWaitMs(policy, attempt);
    if (!classified.retryable || attempt > policy.maxRetries || at.elapsedMs + waitedMs >= policy.callDeadlineMs)
      return new ModelAnswerError({ message, retryable: classified.retryable, attempts: attempt, retries });
    return { attempt, error: "invalid-json", message, waitedMs };
  }
  const deadlineHit = at.elapsedMs >= policy.callDeadlineMs - 1;
  const errorClass = classified.errorClass === "timeout" && deadlineHit ? "deadline" : classified.errorClass;
  const message = at.redact(
    errorClass === "deadline"
      ? `no answer within the call's deadline of ${Math.round(policy.callDeadlineMs / 1000)} s`
      : classified.message,
  );
  const waitedMs = retryWaitMs(policy, attempt, classified.retryAfterMs);
  if (errorClass === "deadline" || attempt > policy.maxRetries || at.elapsedMs + waitedMs >= policy.callDeadlineMs)
    return new ModelTransportError({ errorClass, message, attempts: attempt, retries });
  return { attempt, error: errorClass, message, waitedMs };
}

/** A `waiting` event every `progressEveryMs` while an attempt is in flight, so long work shows progress. */
function startTicker(settings: LoopSettings, attempt: number, elapsed: () => number) {
  const { onProgress } = settings;
  if (!onProgress) return undefined;
  const ticker = setInterval(
    () => onProgress({ kind: "waiting", attempt, elapsedMs: Math.round(elapsed()) }),
    settings.progressEveryMs,
  );
  ticker.unref();
  return ticker;
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
