import { type Completion, type CompleteRequest, createModelClient, type ModelClient } from "@loclab/agent";
import { leaseReporter } from "./endpoint-pool.js";
import type { AttemptRequest } from "./run-kind.js";
import type { RunPlan } from "./run-plan.js";

/** How an attempt's model is asked: sampling, the output limit, and how long to wait. */
export interface ClientSettings {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  /** Per request, the whole answer included. */
  requestTimeoutSeconds: number;
  /** Per model call, the client's retries and waits included. */
  callDeadlineSeconds: number;
}

/**
 * The attempt's model client on its leased endpoint, with the cell's seed, the kind's sampling
 * and timeouts, and the run's retries; the pool hears of every answer and every transport
 * failure (its circuit breaker). One for the localizer's attempts and the fixer's.
 */
export function pooledClient(
  plan: RunPlan,
  { attempt, lease, pool, onRetry }: Pick<AttemptRequest, "attempt" | "lease" | "pool" | "onRetry">,
  settings: ClientSettings,
): ModelClient {
  const { spec } = plan;
  const report = leaseReporter(pool, lease.index);
  const inner = createModelClient({
    baseURL: lease.endpoint.baseURL,
    model: lease.endpoint.model,
    ...(lease.endpoint.apiKeyEnv ? { apiKeyEnv: lease.endpoint.apiKeyEnv } : {}),
    ...(attempt.cell.seed !== null ? { seed: attempt.cell.seed } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.topP !== undefined ? { topP: settings.topP } : {}),
    ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
    callDeadlineMs: settings.callDeadlineSeconds * 1000,
    maxRetries: spec.retry.requestRetries,
    backoffMs: spec.retry.backoffSeconds * 1000,
    onProgress: (event) => {
      report.onProgress(event);
      if (event.kind === "retrying") onRetry(event.retry);
    },
  });
  return {
    model: inner.model,
    baseURL: inner.baseURL,
    complete: async (request: CompleteRequest): Promise<Completion> => {
      try {
        const completion = await inner.complete(request);
        report.answered();
        return completion;
      } catch (error) {
        report.failed(error);
        throw error;
      }
    },
  };
}
