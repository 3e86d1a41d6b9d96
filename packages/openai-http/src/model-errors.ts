/**
 * The one taxonomy of a failed model call, the same for chat, completions and `/tokenize`:
 *
 * - **transport**: the server's or the network's doing (a 5xx, a 429, a 408, an attempt over its
 *   request timeout, a connection refused or cut, before or after the headers). Retried and
 *   recorded; never shown to the model as if it had said something.
 * - **request**: ours (any other 4xx): the same body cannot succeed, so it is not retried.
 * - **invalid answer**: the server said 200 but the answer cannot be used. Retried when the
 *   body is not the endpoint's JSON (a proxy's error page, a truncated document), not retried
 *   when it is well formed but lacks what is asked (no logprobs: the server does not support them).
 *
 * `TransportErrorClass` names a transport fault; `deadline` (the call's total time spent) is
 * never retried.
 */
export type ModelErrorKind = "transport" | "request" | "invalid-answer";

export type TransportErrorClass = "http-5xx" | "rate-limited" | "timeout" | "deadline" | "connection";

/** What a retry record says went wrong: a transport class, or `invalid-json` for an answer retried as unusable. */
export type RetryErrorClass = TransportErrorClass | "invalid-json";

/** One failed attempt that was retried: what went wrong and how long the client then waited. */
export interface RetryRecord {
  /** 1-based number of the attempt that failed. */
  attempt: number;
  error: RetryErrorClass;
  message: string;
  waitedMs: number;
}

/** A model call that failed for good; `kind` says which of the three, `retries` what was retried before. */
export abstract class ModelCallError extends Error {
  abstract readonly kind: ModelErrorKind;
  /** The failed attempts before the last one. */
  readonly retries: readonly RetryRecord[];

  constructor(message: string, retries: readonly RetryRecord[] = []) {
    super(message);
    this.retries = retries;
  }
}

/** The last attempt failed with a transport fault and no retries were left. */
export class ModelTransportError extends ModelCallError {
  override readonly name = "ModelTransportError";
  readonly kind = "transport" as const;
  readonly errorClass: TransportErrorClass;
  /** How many attempts were made in all (retries + 1). */
  readonly attempts: number;

  constructor(options: {
    errorClass: TransportErrorClass;
    message: string;
    attempts: number;
    retries: readonly RetryRecord[];
  }) {
    super(
      `model transport failed after ${options.attempts} attempt(s) (${options.errorClass}): ${options.message}`,
      options.retries,
    );
    this.errorClass = options.errorClass;
    this.attempts = options.attempts;
  }
}

/** The server rejected the request (HTTP 4xx other than 408 and 429); not retried. */
export class ModelRequestError extends ModelCallError {
  override readonly name = "ModelRequestError";
  readonly kind = "request" as const;
  readonly status: number;

  constructor(options: { status: number; message: string; retries?: readonly RetryRecord[] }) {
    super(`model request rejected (HTTP ${options.status}): ${options.message}`, options.retries);
    this.status = options.status;
  }
}

/**
 * The server answered 200 with something that cannot be used. A parser throws it with
 * `retryable: false` for a well-formed answer that lacks what was asked (asking again gives the
 * same answer); the client throws it with `retryable: true` when an answer that was not the
 * endpoint's JSON was retried to the end.
 */
export class ModelAnswerError extends ModelCallError {
  override readonly name = "ModelAnswerError";
  readonly kind = "invalid-answer" as const;
  readonly retryable: boolean;
  /** How many attempts were made in all; 0 when a parser threw it and no client has counted yet. */
  readonly attempts: number;
  /** The problem alone, without the attempt count (the client rewraps a parser's error with it). */
  readonly problem: string;

  constructor(options: { message: string; retryable: boolean; attempts?: number; retries?: readonly RetryRecord[] }) {
    const attempts = options.attempts ?? 0;
    super(
      attempts > 0 ? `model answer unusable after ${attempts} attempt(s): ${options.message}` : options.message,
      options.retries,
    );
    this.retryable = options.retryable;
    this.attempts = attempts;
    this.problem = options.message;
  }
}
