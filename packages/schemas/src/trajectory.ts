import { z } from "zod";
import { ARTIFACT_KINDS } from "./artifact-kinds.js";
import { formatZodError } from "./format-error.js";
import { InstanceIdSchema } from "./instance-id.js";
import { ProvenanceSchema } from "./artifact.js";
import { SCHEMA_VERSION } from "./version.js";

/**
 * The loclab trajectory format: one file per instance, `<instance_id>.traj.jsonl`, whose line 1
 * is a header and whose lines 2… are one step each. Runs write it (the agent's trajectory
 * writer validates every line against these schemas before it is written); analysis reads it
 * (the analysis package's reader validates every line on the way in). This file is the one
 * definition both sides share: the log is the contract (docs/architecture.md).
 */

/** The `kind` of a loclab trajectory file's header line. */
export const TRAJECTORY_KIND = ARTIFACT_KINDS.trajectory;

/**
 * How a loclab run ended. `submitted`: the agent handed in its answer (maybe empty). The
 * `*_limit` exits are budgets (out of budget in the failure breakdown); `format_error` and
 * `error` are failures; `running` is what the header says until the run ends, so a file still
 * `running` after its run is a crash.
 */
export const TRAJECTORY_EXITS = [
  "submitted",
  "step_limit",
  "cost_limit",
  "time_limit",
  "context_limit",
  "call_limit",
  "disk_limit",
  "format_error",
  "error",
  "running",
] as const;
export type TrajectoryExit = (typeof TRAJECTORY_EXITS)[number];

/** The budget each `*_limit` exit stands for, as the failure breakdown names budgets. */
export const TRAJECTORY_BUDGET_EXITS = {
  step_limit: "steps",
  cost_limit: "cost",
  time_limit: "time",
  context_limit: "context",
  call_limit: "calls",
  // The sandbox's writable layer (docs/definitions.md §9): what an attempt may write, a budget like the others.
  disk_limit: "disk",
} as const satisfies Partial<Record<TrajectoryExit, string>>;
export type TrajectoryBudgetExit = keyof typeof TRAJECTORY_BUDGET_EXITS;

/** Whether an exit is one of the budget exits (and so "out of budget"). */
export function isBudgetExit(exit: string): exit is TrajectoryBudgetExit {
  return Object.hasOwn(TRAJECTORY_BUDGET_EXITS, exit);
}

const Timestamp = z.iso.datetime({ offset: true });
const Count = z.number().int().nonnegative();

/** Tokens (and money, for priced APIs) of one model call, or totals of a run. */
export const TrajectoryUsageSchema = z.strictObject({
  promptTokens: Count.optional(),
  completionTokens: Count.optional(),
  totalTokens: Count.optional(),
  costUsd: z.number().nonnegative().optional(),
});

/** A run's totals: its usage and the model calls made (the header's and the ledger's `usage`). */
export const TrajectoryTotalsSchema = TrajectoryUsageSchema.extend({ apiCalls: Count.optional() });
/** The totals as the localizer counts them: every count present. */
export type TrajectoryTotals = Required<Omit<z.infer<typeof TrajectoryTotalsSchema>, "costUsd">>;

/** The budgets a run was given. */
export const TrajectoryLimitsSchema = z.strictObject({
  steps: Count.optional(),
  costUsd: z.number().nonnegative().optional(),
  seconds: z.number().nonnegative().optional(),
  calls: Count.optional(),
  rounds: Count.optional(),
});
export type TrajectoryLimits = z.infer<typeof TrajectoryLimitsSchema>;

/** Line 1 of a loclab trajectory file, rewritten with the exit when the run ends. */
export const TrajectoryHeaderSchema = z.strictObject({
  kind: z.literal(TRAJECTORY_KIND),
  schemaVersion: z.literal(SCHEMA_VERSION),
  instanceId: InstanceIdSchema,
  outcome: z.strictObject({ exit: z.enum(TRAJECTORY_EXITS), patch: z.string().nullable() }),
  model: z.string().optional(),
  limits: TrajectoryLimitsSchema.optional(),
  usage: TrajectoryTotalsSchema.optional(),
  startedAt: Timestamp.optional(),
  endedAt: Timestamp.optional(),
  provenance: ProvenanceSchema.optional(),
  /**
   * How the model's answers were decoded (docs/definitions.md §1, "tool-call decoding"):
   * `free` or `constrained` to a valid tool call by a JSON Schema the server enforced. Absent
   * in trajectories written before it existed, which were all `free`.
   */
  decoding: z.strictObject({ toolCalls: z.enum(["free", "constrained"]) }).optional(),
});
export type TrajectoryHeaderLine = z.infer<typeof TrajectoryHeaderSchema>;

/** A transport failure retried before a step's answer, as the model client recorded it (never model output). */
export const TrajectoryRetrySchema = z.strictObject({
  attempt: Count,
  error: z.string(),
  message: z.string(),
  waitedMs: z.number().nonnegative(),
});
export type TrajectoryRetry = z.infer<typeof TrajectoryRetrySchema>;

/** One tool call of a step, with its observation (whose length is the result size). */
export const TrajectoryToolCallSchema = z.strictObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  observation: z.string().optional(),
  ok: z.boolean().optional(),
  returnCode: z.number().int().optional(),
  observedAt: Timestamp.optional(),
  /** A sub-agent's own trajectory (the fixer's `localizer` tool): its file name, beside this one. */
  subTrajectory: z.string().min(1).optional(),
});
export type TrajectoryToolCallLine = z.infer<typeof TrajectoryToolCallSchema>;

/** One chat message as the model was sent it (the agent's `ChatMessage`). */
export const TrajectoryMessageSchema = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.string() }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    toolCalls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  }),
  z.strictObject({ role: z.literal("tool"), toolCallId: z.string(), content: z.string() }),
]);
export type TrajectoryMessage = z.infer<typeof TrajectoryMessageSchema>;

/**
 * The messages of a step's request, as a change of the previous step's: its first `keep`
 * messages, then `add` (step 0: `keep` 0 and the system and user messages in full). A step
 * usually adds the last answer and its observations; when context truncation rewrote an old
 * observation, `keep` stops before it and `add` carries the rest. `tools`: the names of the
 * tools offered. `rebuildRequests` (@loclab/analysis) rebuilds every request and checks it
 * against `messagesDigest`.
 */
export const TrajectoryRequestSchema = z.strictObject({
  keep: Count,
  add: z.array(TrajectoryMessageSchema),
  tools: z.array(z.string()).optional(),
});
export type TrajectoryRequest = z.infer<typeof TrajectoryRequestSchema>;

/** Lines 2…: one step each, `step` counting from 0 without gaps; `error` carries harness notes. */
export const TrajectoryStepSchema = z.strictObject({
  step: Count,
  output: z.string().optional(),
  finishReason: z.string().optional(),
  usage: TrajectoryUsageSchema.optional(),
  toolCalls: z.array(TrajectoryToolCallSchema),
  startedAt: Timestamp.optional(),
  endedAt: Timestamp.optional(),
  error: z.string().optional(),
  /** SHA-256 (hex) of the messages sent for this step: ties the step to its exact request. */
  messagesDigest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** The request's messages, so that the exact request can be rebuilt (see `TrajectoryRequestSchema`). */
  request: TrajectoryRequestSchema.optional(),
  retries: z.array(TrajectoryRetrySchema).optional(),
});
export type TrajectoryStepLine = z.infer<typeof TrajectoryStepSchema>;

/** Drops undefined properties at every depth, as JSON.stringify would, so that strict schemas accept the value. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, inner]) => inner !== undefined)
      .map(([key, inner]) => [key, withoutUndefined(inner)]),
  );
}

/**
 * One line of a loclab trajectory, as every writer produces it: undefined properties dropped,
 * the value checked against `TrajectoryHeaderSchema` or `TrajectoryStepSchema`, serialized. A
 * value that does not fit is a TypeError naming `what` and the field (a bug in the writer),
 * and no text is returned, so nothing unreadable is ever written.
 *
 * @example formatTrajectoryLine("step", { step: 0, toolCalls: [] }, "step 0") // '{"step":0,"toolCalls":[]}'
 */
export function formatTrajectoryLine(kind: "header" | "step", value: object, what: string = kind): string {
  const schema: z.ZodType = kind === "header" ? TrajectoryHeaderSchema : TrajectoryStepSchema;
  const parsed = schema.safeParse(withoutUndefined(value));
  if (!parsed.success)
    throw new TypeError(
      `trajectory ${what} does not fit the loclab trajectory schema: ${formatZodError(parsed.error)}`,
    );
  return JSON.stringify(parsed.data);
}
