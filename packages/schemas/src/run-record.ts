import { z } from "zod";
import { ARTIFACT_KINDS } from "./artifact-kinds.js";
import { ArmSchema, ControlSchema } from "./control.js";
import { RepairRecordSchema } from "./repair-record.js";
import { InstanceIdSchema } from "./instance-id.js";
import { PredictionSchema } from "./prediction.js";
import { SCHEMA_VERSION } from "./version.js";
import { TRAJECTORY_EXITS, TrajectoryRetrySchema, TrajectoryTotalsSchema } from "./trajectory.js";

/** The `kind` of a run record line. */
export const RUN_RECORD_KIND = ARTIFACT_KINDS.runRecord;

/**
 * How one attempt at one instance ended. The localizer's own outcomes (`finished`,
 * `forced_final`, `budget_exhausted`, `model_error` — the server refused the request with a
 * 4xx, e.g. a context overflow —, `invalid_final`) are the model's doing and final: the
 * attempt key is done and never retried, since retrying only those would bias the results.
 * `infra_error` (the endpoint failed in transport after the client's retries, or went down)
 * and `failed` (the harness failed around the loop: a workspace that could not be made, a
 * tool that threw) are not the model's doing: the key stays open and runs again.
 */
export const LOCALIZE_OUTCOMES = [
  "finished",
  "forced_final",
  "budget_exhausted",
  "model_error",
  "invalid_final",
] as const;
/** How a localization episode ended (`localizeInstance`): the model's doing, so final. */
export type LocalizeOutcome = (typeof LOCALIZE_OUTCOMES)[number];
/**
 * A repair attempt's one final outcome: the fixer ended (any exit: submitted, out of calls or
 * time, a refused prompt) and its final patch has the evaluation's verdict (`repair.resolved`).
 * A fixer or evaluation that failed for the infrastructure's sake (the model server in
 * transport, the sandbox, the image, the evaluation container) is `infra_error`, never
 * "unresolved".
 */
export const REPAIR_OUTCOMES = ["evaluated"] as const;
export const RUN_ATTEMPT_OUTCOMES = [...LOCALIZE_OUTCOMES, ...REPAIR_OUTCOMES, "infra_error", "failed"] as const;
export type RunAttemptOutcome = (typeof RUN_ATTEMPT_OUTCOMES)[number];
export const FINAL_RUN_OUTCOMES: readonly RunAttemptOutcome[] = [...LOCALIZE_OUTCOMES, ...REPAIR_OUTCOMES];

/**
 * Whether a record carries the attempt's result: a localization's prediction, or a repair's
 * final patch with its verdict. Tables call both "predicted".
 */
export function hasResult(record: Pick<RunRecord, "prediction" | "repair">): boolean {
  return record.prediction !== undefined || record.repair !== undefined;
}

/** Whether an outcome closes its attempt key (see `RUN_ATTEMPT_OUTCOMES`). */
export function isFinalOutcome(outcome: RunAttemptOutcome): boolean {
  return FINAL_RUN_OUTCOMES.includes(outcome);
}

/**
 * The leak audit of an attempt (docs/definitions.md §4): occurrences, in the text the model was
 * first given, of the instance id, the repository's owner and name, its top-level packages and
 * the gold (paths, dotted modules, bare file names, symbols), each counted once; `found` names
 * what was found (`kind:term`).
 */
export const LeakAuditRecordSchema = z.strictObject({
  instanceId: z.number().int().nonnegative(),
  owner: z.number().int().nonnegative(),
  repository: z.number().int().nonnegative(),
  packages: z.number().int().nonnegative(),
  goldPaths: z.number().int().nonnegative(),
  goldModules: z.number().int().nonnegative(),
  goldFileNames: z.number().int().nonnegative(),
  goldSymbols: z.number().int().nonnegative(),
  found: z.array(z.string()),
});
export type LeakAuditRecord = z.infer<typeof LeakAuditRecordSchema>;

/**
 * One line of a run's attempt ledger (`attempts.jsonl`): one attempt at one attempt key
 * (instance × seed × control × localizer settings, hashed: `key`), appended when the attempt
 * ends, never rewritten. A key is done when it has a record with a final outcome
 * (`isFinalOutcome`); resuming runs the keys that are not. Every attempt stays on record, the
 * failed ones too. `trajectory` is relative to the run folder. `retries` are the transport
 * faults the model client retried on the way (each one a failed HTTP attempt); `error` holds
 * the last one's message for an `infra_error`.
 */
export const RunRecordSchema = z.strictObject({
  kind: z.literal(RUN_RECORD_KIND),
  schemaVersion: z.literal(SCHEMA_VERSION),
  /** sha256 (hex) of the attempt key's canonical JSON. */
  key: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in hex"),
  instanceId: InstanceIdSchema,
  /** 1 for the first attempt at this key. */
  attempt: z.number().int().positive(),
  seed: z.number().int().nonnegative().nullable(),
  control: ControlSchema,
  /** A repair run's arm (its cell's third part); absent for localization. */
  arm: ArmSchema.optional(),
  /** A repair run's framework when not loclab's fixer (the cell's fourth part). */
  framework: ArmSchema.optional(),
  endpoint: z.strictObject({ baseURL: z.string().min(1), model: z.string().min(1) }).nullable(),
  outcome: z.enum(RUN_ATTEMPT_OUTCOMES),
  /** The trajectory's exit, when a trajectory was written. */
  exit: z.enum(TRAJECTORY_EXITS).nullable(),
  turns: z.number().int().nonnegative(),
  usage: TrajectoryTotalsSchema,
  wallMs: z.number().nonnegative(),
  /** Of `wallMs`, the time inside answered model calls; the rest is the harness's (workspace, tools, prompts, logging). */
  modelMs: z.number().nonnegative(),
  retries: z.array(TrajectoryRetrySchema),
  trajectory: z.string().min(1).nullable(),
  /**
   * The prediction, for `finished` and `forced_final` (mapped back to the original paths for
   * `shuffled`). The cell's predictions.jsonl is derived from these (`cellPredictions`): the
   * ledger line is written first, and a kill before the predictions line is mended by
   * rebuilding the file from the ledger, never by running again.
   */
  prediction: PredictionSchema.optional(),
  error: z.string().optional(),
  /** What the first prompt held of the task's identity and gold (every attempt whose prompt was built). */
  leaks: LeakAuditRecordSchema.optional(),
  /** The prompt-token limit the attempt ran with (the spec's, or the server's window less the output budget), when there was one. */
  contextLimitTokens: z.number().int().positive().optional(),
  /** A repair attempt (`evaluated`): the fixer's exit details and the evaluation's verdict. */
  repair: RepairRecordSchema.optional(),
  startedAt: z.iso.datetime({ offset: true }),
  endedAt: z.iso.datetime({ offset: true }),
});
export type RunRecord = z.infer<typeof RunRecordSchema>;
