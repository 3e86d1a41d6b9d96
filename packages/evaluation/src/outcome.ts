import { EVALUATION_STATUSES } from "@loclab/schemas";
import { z } from "zod";

/** What became of one instance in one evaluation run (the list is the schemas', which ledger records of repair runs use too). */
export const OUTCOME_STATUSES = EVALUATION_STATUSES;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

export const InfraFailureReasonSchema = z.enum([
  "daemon-error",
  "image-missing",
  "image-build-failed",
  "environment-unsupported",
  "mirror-missing",
  "timeout",
  "oom-killed",
  "container-killed",
  "eval-error",
  "network-standin-failed",
]);

/**
 * loclab's record of an instance (outcome.json, beside the harness's report.json): the verdict,
 * or the infrastructure failure that prevented one, with what went in (image digest, patch and
 * script hashes) and whether it came from the result cache.
 */
export const InstanceOutcomeSchema = z.object({
  instance_id: z.string(),
  model_name_or_path: z.string(),
  run_id: z.string(),
  status: z.enum(OUTCOME_STATUSES),
  resolution: z.enum(["RESOLVED_FULL", "RESOLVED_PARTIAL", "RESOLVED_NO"]).optional(),
  infra_failure_reason: InfraFailureReasonSchema.optional(),
  infra_failure_detail: z.string().optional(),
  apply_command: z.string().optional(),
  image: z.object({ name: z.string(), id: z.string() }).optional(),
  /**
   * The image's Python (loclab's local images): what the spec asked for, what the image has and
   * the rule that chose it (`exact`, `nearest-newer`, `nearest-older`), so that no result is
   * silently from another interpreter. Absent for prebuilt images (the harness's own).
   */
  python: z
    .object({ requested: z.string(), actual: z.string(), rule: z.enum(["exact", "nearest-newer", "nearest-older"]) })
    .optional(),
  /**
   * Local images: whether a calibration validated this image (gold resolved every time, the empty
   * patch did not). false means the verdict comes from an image never shown to tell them apart.
   */
  image_validated: z.boolean().optional(),
  patch_sha256: z.string(),
  /** `patch-too-large`: why the patch was not run (its size, or the binary files over their limit). */
  patch_over_limit: z.string().optional(),
  /** `log-over-limit`: how much the eval script printed against the test log's cap (what was kept is not graded). */
  log_over_limit: z.string().optional(),
  eval_script_sha256: z.string().optional(),
  test_exit_code: z.number().int().nullable().optional(),
  cached: z.boolean(),
  started_at: z.string(),
  duration_ms: z.number(),
  harness_version: z.string(),
});
export type InstanceOutcome = z.output<typeof InstanceOutcomeSchema>;
