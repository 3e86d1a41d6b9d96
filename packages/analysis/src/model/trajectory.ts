/**
 * The one internal trajectory model every importer produces (issue 8, item 1). Plain types:
 * the zod schemas live at the file boundary, in each format's reader.
 *
 * Times are epoch seconds (as mini-swe-agent and AutoCodeRover log them); a field is absent
 * when the log does not say, never guessed.
 */

/** Where a trajectory came from: the log format, with mini-swe-agent's two generations apart. */
export type TrajectoryFormat =
  | "loclab"
  | "mini-swe-agent-2"
  | "mini-swe-agent-1"
  | "swe-agent"
  | "autocoderover"
  | "sherloc";

/** Tokens and money of one model call, or totals of a task. */
export interface TokenUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  costUsd?: number;
}

/** One tool call and what came back. */
export interface RecordedToolCall {
  /**
   * The tool as the harness names it: "bash" for a shell action, an ACI command of SWE-agent
   * ("open", "edit", "search_dir"), an AutoCodeRover search API ("search_class"), a loclab tool
   * ("read_file"). The action that hands in the patch is named "submit" in every format (mini's
   * `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`, SWE-agent's `submit`), so that counting calls
   * can leave it out.
   */
  name: string;
  /** Structured arguments; a shell action is `{ command }`. */
  arguments: Record<string, unknown>;
  /** The text the agent saw back, when the log keeps it. */
  observation?: string;
  /** The shell's exit code, when logged. */
  returnCode?: number;
  /** False when the harness marks the call as failed (AutoCodeRover's call_ok, loclab's ok). */
  ok?: boolean;
  /** When the observation was recorded (epoch seconds). */
  observedAt?: number;
}

/** One model output with the tool calls it made (none, one, or several in parallel). */
export interface TrajectoryStep {
  /** 0-based position in the trajectory. */
  index: number;
  /** The model's text (thought and action as written), when the log keeps it. */
  output?: string;
  /** The API's finish_reason as logged ("stop", "tool_calls", "length", "STOP", …). */
  finishReason?: string;
  usage?: TokenUsage;
  toolCalls: RecordedToolCall[];
  /** When the model call started (epoch seconds). */
  startedAt?: number;
  /** When the step's last event (output or observation) was recorded (epoch seconds). */
  endedAt?: number;
  /**
   * A harness message that is not a tool result: a format error ("found 2 actions"), a
   * restart, SWE-agent's automatic `exit_cost`. Such a step may have no output and no call.
   */
  error?: string;
}

/** What a run's log says about how a task ended, before any resolved label is attached. */
export interface TaskOutcome {
  /**
   * The exit status as the log spells it: mini-swe-agent "Submitted" / "LimitsExceeded" / an
   * exception name, SWE-agent "submitted" / "submitted (exit_cost)" / "early_exit", the
   * AutoCodeRover patch-extraction status ("APPLICABLE_PATCH"), loclab's exit. Null when the
   * log has none (a run that died before writing it).
   */
  exitStatus: string | null;
  /** The final patch as a diff; null or "" when the task ended without one. */
  patch: string | null;
}

/** Limits the harness was configured with, when the log records them. */
export interface RunLimits {
  /** Model calls (mini-swe-agent step_limit, loclab steps). */
  steps?: number;
  /** Dollars per task (mini-swe-agent cost_limit, SWE-agent per_instance_cost_limit). */
  costUsd?: number;
  /** Wall-clock seconds per task. */
  seconds?: number;
  /** Counted tool calls per task (the FGL harness's budget). */
  calls?: number;
  /** Context-retrieval rounds (AutoCodeRover conv_round_limit). */
  rounds?: number;
}

/** Everything about a trajectory except its steps: what a streaming reader returns at the end. */
export interface TrajectoryHeader {
  format: TrajectoryFormat;
  instanceId: string;
  /** The file or folder it was read from. */
  source: string;
  outcome: TaskOutcome;
  /** Totals as the log states them (model_stats, cost.json); per-step usage is on the steps. */
  usage?: TokenUsage & { apiCalls?: number };
  limits?: RunLimits;
  /** Context-retrieval rounds used (AutoCodeRover: N of the last conversation_round_N.json). */
  rounds?: number;
  /** Wall clock of the whole task, when the log states it (AutoCodeRover cost.json, loclab). */
  startedAt?: number;
  endedAt?: number;
  model?: string;
}

/** A whole trajectory in memory. For runs larger than memory, read step by step instead (readRun). */
export interface Trajectory extends TrajectoryHeader {
  steps: TrajectoryStep[];
}

/** Receives a trajectory's steps one at a time, in order, as a reader produces them. */
export type StepSink = (step: TrajectoryStep) => void;
