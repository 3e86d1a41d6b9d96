import type { InstanceOutcome } from "./outcome.js";
import { describePythonChoice } from "./python-choice.js";

/**
 * The run summary: the harness's fields (`make_run_report`, schema_version 2) with their
 * meaning, plus loclab's. Where loclab differs it says so by field: `error_ids` holds only
 * infrastructure failures (each named in `infra_failures`), never a model's fault; a patch that
 * does not apply is unresolved (the harness counts it as an error) and is also listed in
 * `patch_apply_failed_ids`.
 */
export interface RunSummary {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  error_ids: string[];
  schema_version: 2;
  patch_apply_failed_ids: string[];
  infra_failures: Record<string, { reason: string; detail: string }>;
  cached_ids: string[];
  run_id: string;
  harness_version: string;
  images: "prebuilt" | "local";
  /** loclab's local images: instances per Python, "3.9 (exact)", "3.9 for 3.6 (nearest-newer)". */
  pythons: Record<string, number>;
  /** Patches over the patch limits (counted unresolved, never run); absent when none. */
  patch_too_large_ids?: string[];
  /** loclab's: instances whose test log passed its cap (ungraded, counted as unresolved). */
  log_over_limit_ids?: string[];
  /** Instances evaluated on another Python than their spec's (the rule's choice). */
  python_substituted_ids: string[];
  /** Instances graded on a local image no calibration validated (`loclab evaluate calibrate`). */
  unvalidated_image_ids: string[];
}

export function runSummary(input: {
  datasetIds: readonly string[];
  submittedIds: readonly string[];
  outcomes: readonly InstanceOutcome[];
  runId: string;
  harnessVersion: string;
  images: "prebuilt" | "local";
}): RunSummary {
  const sorted = (ids: Iterable<string>) => [...ids].sort();
  const by = (status: InstanceOutcome["status"]) =>
    input.outcomes.filter((outcome) => outcome.status === status).map((outcome) => outcome.instance_id);
  const resolved = by("resolved");
  const applyFailed = by("patch-apply-failed");
  // Over the patch limits: not run, counted as the harness counts a patch that fails (unresolved).
  const tooLarge = by("patch-too-large");
  // A test log past its cap: not graded, counted as unresolved too (the patch's doing).
  const logOver = by("log-over-limit");
  const unresolved = [...by("unresolved"), ...applyFailed, ...tooLarge, ...logOver];
  const empty = by("empty-patch");
  const infra = input.outcomes.filter((outcome) => outcome.status === "infra-failure");
  const submitted = new Set(input.submittedIds);
  const completed = [...resolved, ...unresolved];
  return {
    total_instances: input.datasetIds.length,
    submitted_instances: input.submittedIds.length,
    completed_instances: completed.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    empty_patch_instances: empty.length,
    error_instances: infra.length,
    completed_ids: sorted(completed),
    incomplete_ids: sorted(input.datasetIds.filter((id) => !submitted.has(id))),
    empty_patch_ids: sorted(empty),
    submitted_ids: sorted(input.submittedIds),
    resolved_ids: sorted(resolved),
    unresolved_ids: sorted(unresolved),
    error_ids: sorted(infra.map((outcome) => outcome.instance_id)),
    schema_version: 2,
    patch_apply_failed_ids: sorted(applyFailed),
    ...(tooLarge.length > 0 ? { patch_too_large_ids: sorted(tooLarge) } : {}),
    ...(logOver.length > 0 ? { log_over_limit_ids: sorted(logOver) } : {}),
    infra_failures: Object.fromEntries(
      [...infra]
        .sort((a, b) => (a.instance_id < b.instance_id ? -1 : 1))
        .map((outcome) => [
          outcome.instance_id,
          { reason: outcome.infra_failure_reason ?? "eval-error", detail: outcome.infra_failure_detail ?? "" },
        ]),
    ),
    cached_ids: sorted(input.outcomes.filter((outcome) => outcome.cached).map((outcome) => outcome.instance_id)),
    run_id: input.runId,
    harness_version: input.harnessVersion,
    images: input.images,
    pythons: countBy(input.outcomes.flatMap((outcome) => (outcome.python ? [describePython(outcome.python)] : []))),
    python_substituted_ids: sorted(
      input.outcomes
        .filter((outcome) => outcome.python && outcome.python.rule !== "exact")
        .map((outcome) => outcome.instance_id),
    ),
    unvalidated_image_ids: sorted(
      input.outcomes.filter((outcome) => outcome.image_validated === false).map((outcome) => outcome.instance_id),
    ),
  };
}

function describePython(python: NonNullable<InstanceOutcome["python"]>): string {
  return describePythonChoice({ python: python.actual, requested: python.requested, rule: python.rule });
}

function countBy(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of [...keys].sort()) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}
