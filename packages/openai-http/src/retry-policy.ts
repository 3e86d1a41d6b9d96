/**
 * The one retry policy of every model call loclab makes. A failed attempt that may be retried
 * waits `max(backoff, Retry-After) × (1 + 0.25·jitter())`, where the backoff starts at
 * `backoffMs`, doubles each retry and stops growing at `maxBackoffMs`; the jitter keeps many
 * clients from retrying in step. No retry starts whose wait would cross the call's deadline.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Wait before the first retry; doubles each retry. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Source of the jitter, uniform in [0, 1). */
  jitter: () => number;
  /** Per attempt, covering the whole answer (a server that trickles its body counts too). */
  requestTimeoutMs: number;
  /** The whole call, retries and waits included; `Infinity` for none. */
  callDeadlineMs: number;
}

/** The defaults: 3 retries, 1 s doubling to 60 s, 300 s per attempt, 900 s per call. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  jitter: Math.random,
  requestTimeoutMs: 300_000,
  callDeadlineMs: 900_000,
});

/** Retries wait up to a quarter longer than their base. */
const JITTER_FRACTION = 0.25;

/** A whole policy from the defaults and the given parts, checked (a RangeError names the bad field). */
export function retryPolicy(...parts: (Partial<RetryPolicy> | undefined)[]): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
  for (const part of parts) {
    for (const [key, value] of Object.entries(part ?? {}))
      if (value !== undefined) Object.assign(policy, { [key]: value });
  }
  if (!Number.isInteger(policy.maxRetries) || policy.maxRetries < 0)
    throw new RangeError("maxRetries must be a non-negative integer");
  if (!(policy.backoffMs >= 0) || !(policy.maxBackoffMs >= 0))
    throw new RangeError("backoffMs and maxBackoffMs must be non-negative");
  if (!(policy.requestTimeoutMs > 0) || !Number.isFinite(policy.requestTimeoutMs))
    throw new RangeError("requestTimeoutMs must be positive and finite");
  if (!(policy.callDeadlineMs > 0)) throw new RangeError("callDeadlineMs must be positive");
  return policy;
}

/** The wait before retrying after failed attempt `attempt` (1-based). */
export function retryWaitMs(policy: RetryPolicy, attempt: number, retryAfterMs = 0): number {
  const base = Math.max(Math.min(policy.backoffMs * 2 ** (attempt - 1), policy.maxBackoffMs), retryAfterMs);
  return Math.round(base * (1 + JITTER_FRACTION * policy.jitter()));
}
