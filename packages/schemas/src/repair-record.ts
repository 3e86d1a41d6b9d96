import { z } from "zod";
import { TrajectoryTotalsSchema } from "./trajectory.js";

const Count = z.number().int().nonnegative();
const Ms = z.number().nonnegative();

/** What an evaluation said of a patch: outcome.json's `status` (`@loclab/evaluation` takes its list from here). */
export const EVALUATION_STATUSES = [
  "resolved",
  "unresolved",
  "patch-apply-failed",
  "empty-patch",
  "infra-failure",
  // Over the patch limits (docs/definitions.md §9, "sandbox limits"): never stored whole nor run.
  "patch-too-large",
  // The patch's test run printed past the test log's cap: what was kept is not graded (§9).
  "log-over-limit",
] as const;

const Usage = z.strictObject({
  promptTokens: Count,
  completionTokens: Count,
  totalTokens: Count,
  apiCalls: Count.optional(),
});

/**
 * The localizer stage a hand-off arm's attempt used (docs/definitions.md §9): its key (a
 * localization run's key for the same task, seed, control and settings), whether this attempt
 * ran it (its tokens are then in this record's `usage`; every other attempt sharing it reads
 * the stored result), how it ended, its tokens, and its stored result and trajectory.
 */
export const LocalizationStageRefSchema = z.strictObject({
  key: z.string().regex(/^[0-9a-f]{64}$/),
  ran: z.boolean(),
  outcome: z.string().min(1),
  usage: Usage,
  /** The stored stage result (`localizations/<key>.json`). */
  path: z.string().min(1),
  trajectory: z.string().min(1).nullable(),
});

/**
 * The judge's verdict on the finding handed on (every localizer arm when the run has a judge):
 * its status, the scores and the composite under the run's weights, the threshold, whether it
 * passed; `cached` when an earlier attempt's judgement of the same finding, judge model and
 * rubric was reused (no call made here), else the judge's tokens spent here.
 */
export const JudgementRefSchema = z.strictObject({
  status: z.enum(["judged", "invalid_answer", "model_error", "no_finding", "empty_finding"]),
  scores: z.record(z.string(), z.number().int().min(1).max(5)).optional(),
  composite: z.number().min(1).max(5).optional(),
  threshold: z.number().min(1).max(5),
  passes: z.boolean(),
  error: z.string().optional(),
  cached: z.boolean(),
  usage: Usage,
  /** The stored judgement (`judgements/<digest>.json`): the raw answers, the feedback. */
  path: z.string().min(1).nullable(),
});

/** Tokens and wall time of one phase of a fixer attempt. */
const PhaseSchema = TrajectoryTotalsSchema.extend({ ms: Ms });

/**
 * The repair side of a ledger record (`kind: repair` runs; docs/definitions.md §9): how the
 * fixer ended and what the evaluation said of its final patch. `resolved` is the verdict, or
 * null when there is none (an empty patch is not run; it is `false`, as the harness counts it).
 * Paths are relative to the run folder.
 */
export const RepairRecordSchema = z.strictObject({
  /** The harness's verdict on the final patch (false for an empty patch, as the harness counts it). */
  resolved: z.boolean(),
  evaluation: z.strictObject({
    status: z.enum(EVALUATION_STATUSES),
    /** Whether the patch applied in the fresh container (null for an empty patch: not tried). */
    patchApplied: z.boolean().nullable(),
    /** The harness's report.json, beside the trajectory. */
    report: z.string().min(1).nullable(),
    /** The evaluation's own record (outcome.json). */
    outcome: z.string().min(1),
    /** Whether the verdict came from the evaluation's result cache (same image, patch and script). */
    cached: z.boolean(),
    ms: Ms,
  }),
  /** Counted calls (run_command, read_file, edit_file, write_file; the localizer's turns in two-agent mode) and the budget. */
  calls: Count,
  callBudget: Count,
  /** The final patch: sha256 of its text, its size, the files it touches, and its file beside the trajectory. */
  patch: z.strictObject({
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: Count,
    files: z.array(z.string()),
    path: z.string().min(1),
    /**
     * The diff was over the patch limits: what is stored is empty, and this says why (the diff's
     * size, null when it was not taken; the binary files over their limit, with their sizes).
     */
    overLimit: z
      .strictObject({
        bytes: Count.nullable(),
        oversized: z.array(z.strictObject({ path: z.string(), bytes: Count })),
        note: z.string().min(1),
      })
      .optional(),
  }),
  /** Tokens per agent: the fixer's own calls, and the localizer sub-agent's (zero in single-agent mode) with its turns. */
  agents: z.strictObject({
    fixer: TrajectoryTotalsSchema,
    localizer: TrajectoryTotalsSchema.extend({ turns: Count }),
  }),
  /** Before the first successful edit (localization) and after it (repair): tokens and wall time. */
  phases: z.strictObject({ beforeFirstEdit: PhaseSchema, afterFirstEdit: PhaseSchema }),
  /** Answers cut at the output-token limit (repetition-loop candidates) and the model time they took. */
  loops: z.strictObject({ count: Count, ms: Ms }),
  /** Tool errors by kind (`no-such-file`, `edit-absent`, `edit-ambiguous`, …). */
  toolErrors: z.record(z.string(), Count),
  /**
   * How many of the attempt's commands met each sandbox limit (docs/definitions.md §9, "sandbox
   * limits"): `memory` (an OOM kill), `processes` (a refused fork), `output` (bytes past the
   * keep cap dropped), `leftover` (processes left running, ended after the command), and the
   * time the CPU quota held the container back; `disk` (the writable layer passed its limit: the
   * attempt's exit is `disk_limit`), present only when met. Absent when none was met.
   */
  limits: z
    .strictObject({
      memory: Count,
      processes: Count,
      output: Count,
      leftover: Count,
      cpuThrottledMs: Count,
      disk: Count.optional(),
    })
    .optional(),
  /** Turns without a tool call, answered with a nudge. */
  recoveries: Count,
  compactions: Count,
  /** The localizer sessions' trajectories (two agents), linked from the fixer's steps too. */
  localizerTrajectories: z.array(z.string()),
  /**
   * What the fixer was handed after the issue (SHERLOC's transfer), when its arm hands something:
   * the kind (`locations`, `findings`), where it came from (`gold` for the oracle arm,
   * `localizer`), how many locations, and the rendered text's length (the text itself is in the
   * trajectory's first request).
   */
  handOff: z
    .strictObject({
      kind: z.enum(["locations", "findings"]),
      source: z.enum(["gold", "localizer"]),
      /**
       * Whether the text was injected (absent in records written before the judged arm: they
       * always were). False when the judge filtered the finding out, or there was nothing to hand
       * on (the fixer then ran the baseline prompt); `reason` says why.
       */
      injected: z.boolean().optional(),
      reason: z.string().min(1).optional(),
      locations: Count,
      chars: Count,
      localization: LocalizationStageRefSchema.optional(),
      judgement: JudgementRefSchema.optional(),
    })
    .optional(),
  /**
   * Of the attempt's wall time: `sandbox` is the instance image (looked up, or built on first
   * use: minutes then; prepared ahead of the slot, it is there) and the sandbox's start; then
   * the fixer; then the evaluation, after `evaluationQueue` waiting for a place on the
   * evaluations' pool (`repair.evaluation.concurrency`; absent in runs before it, with the
   * endpoint slot already free).
   */
  ms: z.strictObject({ sandbox: Ms, fixer: Ms, evaluation: Ms, evaluationQueue: Ms.optional() }),
});
export type RepairRecord = z.infer<typeof RepairRecordSchema>;
