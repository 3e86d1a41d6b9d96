import type { RunLimits, TrajectoryFormat } from "./trajectory.js";

/**
 * A model output kept as a loop candidate: its finish_reason is not an ordinary one ("stop",
 * "tool_calls", …) or one of its lines repeats at least 3 times. The breakdown decides which
 * candidates are loops under its options (finish reasons, repeat count).
 */
export interface LoopCandidate {
  step: number;
  finishReason?: string;
  /** The most times one non-blank line occurs in a row in this output. */
  longestLineRun: number;
  /** The most times one non-blank line occurs anywhere in this output. */
  mostLineRepeats: number;
  /** Time the output cost: the step's own span, else until the next step started. */
  seconds?: number;
  completionTokens?: number;
}

/**
 * What the breakdown needs from one trajectory, computed in one pass over its steps
 * (summarizeTrajectory / createTaskAccumulator), so that a run of any size is analysed with one
 * step in memory at a time. Counts here are raw; thresholds and which tools count are applied
 * by the breakdown.
 */
export interface TaskSummary {
  instanceId: string;
  format: TrajectoryFormat;
  source: string;
  exitStatus: string | null;
  /** The task ended with a non-empty patch (after trimming whitespace). */
  hasPatch: boolean;
  steps: number;
  /** Steps with model output text. */
  outputs: number;
  /** Tool calls by tool name (the submission is "submit"). */
  toolCalls: Record<string, number>;
  /** Failed calls (ok: false) by tool name. */
  failedCalls: Record<string, number>;
  /** Observations (and harness messages) containing the "no such file" pattern. */
  noFileObservations: number;
  loopCandidates: LoopCandidate[];
  /** Distinct path-like arguments of the tool calls (first `maxPaths`). */
  paths: string[];
  /** Paths the trajectory itself created before or while using them (redirect targets, touch, create…). */
  createdPaths: string[];
  pathsTruncated: boolean;
  /** Wall-clock seconds of the task, when the log has at least two times (or a start and an end). */
  seconds: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  /** Model calls as the log counts them (model_stats.api_calls), else outputs. */
  apiCalls: number | null;
  limits: RunLimits;
  /** AutoCodeRover: the last conversation round. */
  rounds: number | null;
}
