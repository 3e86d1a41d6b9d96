import type { RetryRecord } from "@loclab/openai-http";
import type { RunRecord } from "@loclab/schemas";
import type { EndpointLease, EndpointPool } from "./endpoint-pool.js";
import type { PlannedAttempt, RunPlan } from "./run-plan.js";

/** One attempt as the scheduler hands it to a run kind. */
export interface AttemptRequest {
  attempt: PlannedAttempt;
  /** 1 for the key's first attempt. */
  n: number;
  /** The endpoint slot the attempt holds for all its model calls. */
  lease: EndpointLease;
  /** For reporting faults and successes to the pool's circuit breaker. */
  pool: EndpointPool;
  /** The endpoint's context window (`max_model_len`), when it says. */
  window: number | undefined;
  /** Each transport fault the model client retried. */
  onRetry: (retry: RetryRecord) => void;
  /**
   * Frees the endpoint slot before the attempt ends, once its model calls are over (a repair
   * attempt's evaluation needs no model); idempotent, and the slot is freed at the end anyway.
   */
  releaseSlot?: () => void;
}

/** What a run kind keeps for one session: what its attempts share (workspaces, gold). */
export interface RunKindSession {
  /** One attempt; never throws: a harness failure becomes a `failed` record. */
  runAttempt(request: AttemptRequest): Promise<RunRecord>;
  /**
   * What an attempt needs before its first model call, done before it takes an endpoint slot
   * (its workspace; a repair attempt's instance image) and shared with its run, which finds it
   * made. It may throw: the attempt then meets the same failure and records it.
   */
  prepare?(attempt: PlannedAttempt): Promise<void>;
}

/**
 * What a kind of run does with one attempt key; everything else (the plan's cells and keys, the
 * run folder, the ledger, crash mending, the endpoint pool, budgets, retries of infrastructure
 * failures) is the runner's and the same for every kind. The localizer (`localizerRunKind`) is
 * the first kind; a repair run adds a second by implementing this interface.
 */
export interface RunKind {
  readonly name: string;
  /** Once per session, before the first attempt, with the keys still open. */
  openSession(plan: RunPlan, open: readonly PlannedAttempt[]): Promise<RunKindSession>;
}
