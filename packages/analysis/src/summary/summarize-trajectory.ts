import type { LoopCandidate, TaskSummary } from "../model/task-summary.js";
import type { Trajectory, TrajectoryHeader, TrajectoryStep } from "../model/trajectory.js";
import { lineRepeats } from "@loclab/schemas";
import { pathsInToolCall } from "./paths-in-tool-call.js";

/** What summarizing looks for. The breakdown's thresholds are applied later, on the summary. */
export interface SummaryOptions {
  /** Text of a failed file access in an observation (default "No such file", as in ENOENT messages). */
  noFilePattern?: string | RegExp;
  /** Distinct paths kept per task (default 10,000); beyond it `pathsTruncated` is set. */
  maxPaths?: number;
}

/** Finish reasons of an ordinary output; any other is kept as a loop candidate. */
const ORDINARY_FINISH = new Set([
  "stop",
  "tool_calls",
  "function_call",
  "end_turn",
  "tool_use",
  "stop_sequence",
  "eos",
]);
/** An output whose lines repeat at least this often is kept as a loop candidate. */
export const MIN_REPEATS_KEPT = 3;
const DEFAULT_MAX_PATHS = 10_000;

/** Folds a trajectory's steps, one at a time, into its TaskSummary. */
export interface TaskAccumulator {
  add(step: TrajectoryStep): void;
  finish(header: TrajectoryHeader): TaskSummary;
}

function matcher(pattern: string | RegExp): (text: string) => boolean {
  if (typeof pattern === "string") return (text) => text.includes(pattern);
  const flags = pattern.flags.replace(/[gy]/g, "");
  const regex = new RegExp(pattern.source, flags);
  return (text) => regex.test(text);
}

/**
 * Starts a one-pass summary of a trajectory: feed every step in order with `add`, then `finish`
 * with the reader's header. Keeps only counts, loop candidates and distinct paths, so memory
 * does not grow with the trajectory's text. summarizeTrajectory is this over an in-memory
 * trajectory; readRun uses it while streaming.
 *
 * Rules:
 * - tool calls are counted by name; `ok: false` ones also under failedCalls;
 * - "no such file": every observation (and harness error message) that contains the pattern
 *   counts once;
 * - loop candidates: outputs whose finish_reason is not ordinary (stop, tool_calls, …) or
 *   whose most repeated line occurs ≥ 3 times; an output's time is its step's endedAt −
 *   startedAt, else the next step's startedAt − its startedAt (mini-swe-agent 1.x logs only
 *   the request time);
 * - time of the task: header endedAt − startedAt when the log gives both (AutoCodeRover,
 *   loclab), else the span of every time on the steps; null with fewer than two times;
 * - tokens and cost: the log's totals when it has them (SWE-agent model_stats, cost.json,
 *   loclab usage), else the sum over steps; null when neither exists;
 * - apiCalls: model_stats.api_calls when logged, else the steps with output.
 */
export function createTaskAccumulator(options: SummaryOptions = {}): TaskAccumulator {
  const noFile = matcher(options.noFilePattern ?? "No such file");
  const maxPaths = options.maxPaths ?? DEFAULT_MAX_PATHS;
  const toolCalls: Record<string, number> = {};
  const failedCalls: Record<string, number> = {};
  const loopCandidates: LoopCandidate[] = [];
  const paths = new Set<string>();
  const createdPaths = new Set<string>();
  let pathsTruncated = false;
  let steps = 0;
  let outputs = 0;
  let noFileObservations = 0;
  let first: number | undefined;
  let last: number | undefined;
  let promptTokens: number | undefined;
  let completionTokens: number | undefined;
  let costUsd: number | undefined;
  // The last loop candidate, waiting for the next step's start when its own end is unknown.
  let open: { candidate: LoopCandidate; startedAt: number } | undefined;

  const seen = (time: number | undefined): void => {
    if (time === undefined || !Number.isFinite(time)) return;
    if (first === undefined || time < first) first = time;
    if (last === undefined || time > last) last = time;
  };
  const keepPath = (set: Set<string>, path: string): void => {
    if (set.has(path)) return;
    if (set.size >= maxPaths) {
      pathsTruncated = true;
      return;
    }
    set.add(path);
  };

  return {
    add(step) {
      steps += 1;
      if (open && step.startedAt !== undefined) {
        open.candidate.seconds = Math.max(0, step.startedAt - open.startedAt);
        open = undefined;
      }
      seen(step.startedAt);
      seen(step.endedAt);
      if (step.usage) {
        if (step.usage.promptTokens !== undefined) promptTokens = (promptTokens ?? 0) + step.usage.promptTokens;
        if (step.usage.completionTokens !== undefined)
          completionTokens = (completionTokens ?? 0) + step.usage.completionTokens;
        if (step.usage.costUsd !== undefined) costUsd = (costUsd ?? 0) + step.usage.costUsd;
      }
      if (step.error !== undefined && noFile(step.error)) noFileObservations += 1;
      for (const call of step.toolCalls) {
        toolCalls[call.name] = (toolCalls[call.name] ?? 0) + 1;
        if (call.ok === false) failedCalls[call.name] = (failedCalls[call.name] ?? 0) + 1;
        if (call.observation !== undefined && noFile(call.observation)) noFileObservations += 1;
        seen(call.observedAt);
        const named = pathsInToolCall(call);
        for (const path of named.created) keepPath(createdPaths, path);
        for (const path of named.used) keepPath(paths, path);
      }
      if (step.output === undefined) return;
      outputs += 1;
      const finish = step.finishReason;
      const repeats = lineRepeats(step.output);
      const unusualFinish = finish !== undefined && !ORDINARY_FINISH.has(finish.toLowerCase());
      if (!unusualFinish && repeats.mostRepeats < MIN_REPEATS_KEPT) return;
      const candidate: LoopCandidate = {
        step: step.index,
        longestLineRun: repeats.longestRun,
        mostLineRepeats: repeats.mostRepeats,
      };
      if (finish !== undefined) candidate.finishReason = finish;
      if (step.usage?.completionTokens !== undefined) candidate.completionTokens = step.usage.completionTokens;
      if (step.startedAt !== undefined && step.endedAt !== undefined)
        candidate.seconds = Math.max(0, step.endedAt - step.startedAt);
      else if (step.startedAt !== undefined) open = { candidate, startedAt: step.startedAt };
      loopCandidates.push(candidate);
    },

    finish(header) {
      const usage = header.usage;
      const patch = header.outcome.patch;
      const headerSpan =
        header.startedAt !== undefined && header.endedAt !== undefined ? header.endedAt - header.startedAt : undefined;
      const stepSpan = first !== undefined && last !== undefined && last > first ? last - first : undefined;
      return {
        instanceId: header.instanceId,
        format: header.format,
        source: header.source,
        exitStatus: header.outcome.exitStatus,
        hasPatch: typeof patch === "string" && patch.trim() !== "",
        steps,
        outputs,
        toolCalls,
        failedCalls,
        noFileObservations,
        loopCandidates,
        paths: [...paths],
        createdPaths: [...createdPaths],
        pathsTruncated,
        seconds: headerSpan ?? stepSpan ?? null,
        promptTokens: usage?.promptTokens ?? promptTokens ?? null,
        completionTokens: usage?.completionTokens ?? completionTokens ?? null,
        costUsd: usage?.costUsd ?? costUsd ?? null,
        apiCalls: usage?.apiCalls ?? (outputs > 0 ? outputs : null),
        limits: { ...header.limits },
        rounds: header.rounds ?? null,
      };
    },
  };
}

/**
 * The TaskSummary of an in-memory trajectory (pure): createTaskAccumulator over its steps.
 *
 * @example summarizeTrajectory(trajectory).toolCalls // { bash: 41, submit: 1 }
 */
export function summarizeTrajectory(trajectory: Trajectory, options: SummaryOptions = {}): TaskSummary {
  const accumulator = createTaskAccumulator(options);
  for (const step of trajectory.steps) accumulator.add(step);
  return accumulator.finish(trajectory);
}
