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
 * vLLM's two context errors, word for word (vllm/entrypoints/openai/serving_engine.py), so that
 * a client which recognises vLLM's overflow recognises this server's.
 */
export function promptTooLong(maxModelLen: number, promptTokens: number): ApiError {
  return new ApiError(
    400,
    `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages.`,
  );
}

export function maxTokensTooLarge(maxModelLen: number, promptTokens: number, maxTokens: number): ApiError {
  return new ApiError(
    400,
    `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${maxModelLen} - ${promptTokens}).`,
  );
}
