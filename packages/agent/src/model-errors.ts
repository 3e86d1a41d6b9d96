/**
 * Failure classes of a model call. Transport faults are the server's or the network's doing
 * (retried, recorded, never shown to the model as output): a 5xx, a 429 (`rate-limited`, retried
 * after the server's Retry-After), an attempt over its request timeout (`timeout`), a call over
 * its total deadline (`deadline`, not retried: the time is spent), a broken connection, a body
 * that is not a chat completion. Request errors are ours (any other 4xx: retrying the same body
 * cannot help).
 */
export type TransportErrorClass = "http-5xx" | "rate-limited" | "timeout" | "deadline" | "connection" | "invalid-json";

/** One failed attempt that was retried: what went wrong and how long the client then waited. */
export interface RetryRecord {
  /** 1-based number of the attempt that failed. */
  attempt: number;
  error: TransportErrorClass;
  message: string;
  waitedMs: number;
}

/** The last attempt failed with a transport fault and no retries were left. */
export class ModelTransportError extends Error {
  override readonly name = "ModelTransportError";
  readonly errorClass: TransportErrorClass;
  /** How many attempts were made in all (retries + 1). */
  readonly attempts: number;
  /** The failed attempts before the last one. */
  readonly retries: readonly RetryRecord[];

  constructor(options: {
    errorClass: TransportErrorClass;
    message: string;
    attempts: number;
    retries: readonly RetryRecord[];
  }) {
    super(`model transport failed after ${options.attempts} attempt(s) (${options.errorClass}): ${options.message}`);
    this.errorClass = options.errorClass;
    this.attempts = options.attempts;
    this.retries = options.retries;
  }
}

/** The server rejected the request (HTTP 4xx other than 429); not retried. */
export class ModelRequestError extends Error {
  override readonly name = "ModelRequestError";
  readonly status: number;
  /** Transport faults retried before the rejection (a 503, then a 400), so none goes unrecorded. */
  readonly retries: readonly RetryRecord[];

  constructor(options: { status: number; message: string; retries?: readonly RetryRecord[] }) {
    super(`model request rejected (HTTP ${options.status}): ${options.message}`);
    this.status = options.status;
    this.retries = options.retries ?? [];
  }
}
