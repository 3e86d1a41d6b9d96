/**
 * An error the API answers with, in vLLM's shape:
 * `{"error": {"message", "type", "param", "code"}}` with `code` the HTTP status
 * (`BadRequestError` 400, `NotFoundError` 404, `ServiceUnavailableError` 503, …).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = errorType(status),
    readonly param: string | null = null,
    /** Seconds to send as `Retry-After` (503 when the queue is full). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }

  body(): { error: { message: string; type: string; param: string | null; code: number } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.status } };
  }
}

function errorType(status: number): string {
  if (status === 400) return "BadRequestError";
  if (status === 404) return "NotFoundError";
  if (status === 405) return "MethodNotAllowed";
  if (status === 413) return "BadRequestError";
  if (status === 503) return "ServiceUnavailableError";
  return "InternalServerError";
}

/**
 * vLLM's context errors, word for word, so that a client which recognises vLLM's overflow
 * recognises this server's. A prompt over the window: vLLM 0.32's message (checked against the
 * real server, tests/vllm-real.test.ts; `param` is `input_tokens`). Prompt + `max_tokens` over
 * the window: vLLM 0.32 no longer refuses it (it shortens `max_tokens` silently); this server
 * keeps the older refusal (below), which says what happened instead of cutting the answer.
 */
export function promptTooLong(maxModelLen: number, promptTokens: number): ApiError {
  return new ApiError(
    400,
    `This model's maximum context length is ${maxModelLen} tokens. However, your prompt contains at least ${promptTokens} input tokens, which exceeds this limit even without any output tokens. Please reduce the length of the input prompt.`,
    "BadRequestError",
    "input_tokens",
  );
}

export function maxTokensTooLarge(maxModelLen: number, promptTokens: number, maxTokens: number): ApiError {
  return new ApiError(
    400,
    `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${maxModelLen} - ${promptTokens}).`,
  );
}
