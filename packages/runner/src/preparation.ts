import { defaultThreadCount } from "@loclab/threads";
import type { PreparationOptions } from "./prepare-ahead.js";
import type { RunKindSession } from "./run-kind.js";
import type { PlannedAttempt } from "./run-plan.js";
import type { RunSpec } from "./run-spec.js";

/** Preparations at once when the spec does not say: the machine's cores, at most 4. */
export function defaultPreparationConcurrency(): number {
  return defaultThreadCount(4);
}

/**
 * How a run prepares its attempts ahead of their slots (`drainOverPool`'s `prepare`), from the
 * run kind's `prepare` and the spec's `preparation`: enough prepared ahead to fill every slot of
 * the endpoints (their `maxConcurrency` summed) as it frees, plus those being prepared.
 * Undefined when the kind prepares nothing.
 */
export function preparationOf(
  spec: Pick<RunSpec, "endpoints" | "preparation">,
  kind: RunKindSession,
): PreparationOptions<PlannedAttempt> | undefined {
  const prepare = kind.prepare?.bind(kind);
  if (!prepare) return undefined;
  const concurrency = spec.preparation?.concurrency ?? defaultPreparationConcurrency();
  const slots = spec.endpoints.reduce((sum, endpoint) => sum + endpoint.maxConcurrency, 0);
  return { run: prepare, concurrency, ahead: slots + concurrency };
}
