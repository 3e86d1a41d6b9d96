import type { ModelClient, ToolCallDecoding, TrajectoryUsage } from "@loclab/agent";
import type { ModelCallError } from "@loclab/openai-http";
import type { Provenance, TrajectoryExit } from "@loclab/schemas";
import type { FixerCompaction } from "./compaction.js";
import type { FixerLimits } from "./fixer-limits.js";
import type { FixerPromptName } from "./fixer-prompts.js";
import type { FixerToolResult, PatchOverLimit } from "./fixer-toolbox.js";
import type { PatchLimits } from "./sandbox-limits.js";
import type { LocalizerRunner } from "./localizer-tool.js";
import type { Sandbox } from "./sandbox.js";

// The fixer's options and result (fix-instance.ts runs the loop).

/**
 * How a fixer attempt ended: `submitted` (submit_patch), `call_limit` (a counted call asked
 * for after the budget was spent), `time_limit` (the supervisor's wall budget), `step_limit`
 * (model turns, a guard against a model that never calls a counted tool), `context_limit`
 * (the server refused the prompt as too long), `error` (the model call failed after its
 * retries), `disk_limit` (a command passed the sandbox's writable-layer limit and was killed).
 * In every case the patch is the repository's diff at the end.
 */
export type FixerExit = Extract<
  TrajectoryExit,
  "submitted" | "call_limit" | "time_limit" | "step_limit" | "context_limit" | "disk_limit" | "error"
>;

/** A recovery the loop made instead of failing: a turn without a tool call was answered with a nudge. */
export interface FixerRecovery {
  kind: "no-tool-call";
  step: number;
}

/** One compaction: the trajectory line of its summary call, the fixer turns it replaced, the prompt that set it off. */
export interface FixerCompactionRecord {
  step: number;
  turnsReplaced: number;
  promptTokens: number;
}

/** An answer cut at the output-token limit (finish reason `length`): a repetition-loop candidate, with what it cost. */
export interface FixerLoopCandidate {
  step: number;
  completionTokens: number | undefined;
  ms: number;
}

export interface FixInstanceOptions {
  instance: { instance_id: string; problem_statement: string };
  sandbox: Sandbox;
  client: ModelClient;
  /** `<dir>/<instance_id>.traj.jsonl`: the loclab trajectory, its header's `outcome.patch` the final patch. */
  trajectoryPath: string;
  /** The final patch's limits; default DEFAULT_PATCH_LIMITS. */
  patchLimits?: PatchLimits;
  /** Budgets and caps; default FGL's single agent (36 calls, 8 minutes). */
  limits?: FixerLimits;
  /** Model turns at most; default twice the call budget (turns without a counted call cost nothing else). */
  maxTurns?: number;
  /**
   * `free` (default, as FGL's harness decodes) or `constrained`: each answer decoded by the JSON
   * Schema of one valid call of the fixer's tools (`@loclab/agent`'s tool-call decoding, on any
   * server that enforces `response_format`). Recorded in the trajectory header.
   */
  toolCalls?: ToolCallDecoding;
  /** Templates to use instead of the shipped ones, by name; same placeholders. */
  prompts?: Partial<Record<FixerPromptName, string>>;
  provenance?: Provenance;
  /**
   * The two-agent fixer (FGL): a `localizer` tool that runs a localizer session on the task
   * (`localizerTool`); its turns are charged to the shared budget (give FGL_TWO_AGENTS' 44).
   */
  localizer?: LocalizerRunner;
  /** Context compaction (FGL_COMPACTION for FGL's settings); none by default. */
  compaction?: FixerCompaction;
  /**
   * Text handed to the fixer after the issue, in its first message (SHERLOC's transfer: a
   * rendered hand-off, `renderHandOff` of @loclab/agent); none by default. The user template's
   * `{{handOff}}` receives it after a blank line, or nothing.
   */
  handOff?: string;
}

export interface FixResult {
  exit: FixerExit;
  /** The final patch: what submit_patch handed in, else the repository's diff at the end ("" for none, or over the limits). */
  patch: string;
  /** The final diff was over the patch limits: not kept, not to be evaluated (the record's verdict `patch-too-large`). */
  patchOverLimit?: PatchOverLimit;
  /** Counted calls made. */
  calls: number;
  turns: number;
  usage: TrajectoryUsage;
  /** Usage before the first successful edit (edit_file, write_file) and after: localization and repair. */
  phases: { beforeFirstEdit: TrajectoryUsage & { ms: number }; afterFirstEdit: TrajectoryUsage & { ms: number } };
  loops: FixerLoopCandidate[];
  recoveries: FixerRecovery[];
  compactions: FixerCompactionRecord[];
  /** Every tool call's outcome, in order (errors named: no-such-file, edit-absent, …). */
  toolResults: Omit<FixerToolResult, "content">[];
  /** Tokens per agent: the fixer's own model calls, and the localizer's (two agents; zero otherwise) with the turns charged. */
  agents: { fixer: TrajectoryUsage; localizer: TrajectoryUsage & { turns: number } };
  /** The localizer sessions' trajectories, in call order. */
  localizerTrajectories: string[];
  error?: string;
  /** For the `error` exit: how the model call failed (`transport` after the client's retries is the server's doing, not the model's). */
  errorKind?: ModelCallError["kind"];
  /** Of `wallMs`, the time inside answered model calls of the fixer's own. */
  modelMs: number;
  wallMs: number;
}
