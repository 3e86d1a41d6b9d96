import { z } from "zod";
import { InstanceIdSchema } from "./instance-id.js";
import { SCHEMA_VERSION } from "./version.js";
import { TRAJECTORY_EXITS, TrajectoryUsageSchema } from "./trajectory.js";

/** The `kind` of a run record line. */
export const RUN_RECORD_KIND = "loclab.run-record";

/**
 * How one attempt at one instance ended, in the localizer's words (`finished`,
 * `forced_final`, `budget_exhausted`, `model_error`, `invalid_final`), or `failed` when the
 * harness itself failed before or around the loop (a workspace that could not be made, a tool
 * that threw).
 */
export const RUN_ATTEMPT_OUTCOMES = ["finished", "forced_final", "budget_exhausted", "model_error", "invalid_final", "failed"] as const;
export type RunAttemptOutcome = (typeof RUN_ATTEMPT_OUTCOMES)[number];

/**
 * One line of a run's `runs.jsonl`: one attempt at one instance under one seed and control,
 * appended when the attempt ends, never rewritten. A rerun of a failed instance appends a new
 * attempt, so every attempt stays on record; the runner reads these lines to resume. The
 * trajectory path is relative to the run folder.
 */
export const RunRecordSchema = z.strictObject({
  kind: z.literal(RUN_RECORD_KIND),
  schemaVersion: z.literal(SCHEMA_VERSION),
  instanceId: InstanceIdSchema,
  /** 1 for the first attempt at this (instance, seed, control). */
  attempt: z.number().int().positive(),
  seed: z.number().int().nonnegative().nullable(),
  /** The control the issue and repository went through: `plain`, `masked:<level>`, `shuffled:<seed>`, `mismatch:<seed>`. */
  control: z.string().min(1),
  endpoint: z.strictObject({ baseURL: z.string().min(1), model: z.string().min(1) }),
  outcome: z.enum(RUN_ATTEMPT_OUTCOMES),
  /** The trajectory's exit, when a trajectory was written. */
  exit: z.enum(TRAJECTORY_EXITS).nullable(),
  turns: z.number().int().nonnegative(),
  usage: TrajectoryUsageSchema.extend({ apiCalls: z.number().int().nonnegative().optional() }),
  trajectory: z.string().min(1).nullable(),
  /** Whether a prediction for this attempt was appended to predictions.jsonl. */
  predicted: z.boolean(),
  error: z.string().optional(),
  startedAt: z.iso.datetime({ offset: true }),
  endedAt: z.iso.datetime({ offset: true }),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;
