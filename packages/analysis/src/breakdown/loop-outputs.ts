import type { LoopCandidate, TaskSummary } from "../model/task-summary.js";
import { MIN_REPEATS_KEPT } from "../summary/summarize-trajectory.js";
import { type BreakdownOptions, DEFAULT_BREAKDOWN_OPTIONS } from "./breakdown-options.js";

/** A task's looping outputs, by the two signals the breakdown reports separately. */
export interface LoopOutputs {
  /** Outputs cut at the output-token limit (finish_reason length / max_tokens). */
  finishLength: LoopCandidate[];
  /** Outputs in which one line repeats N times. */
  repeatedLine: LoopCandidate[];
  /** Either (an output with both signals once). */
  all: LoopCandidate[];
}

/**
 * The loop outputs of a task (docs/definitions.md §8 "loops"): outputs whose finish_reason is one of
 * `loops.finishReasons` (default length, max_tokens; compared lower-case), and outputs in
 * which one non-blank line repeats at least `loops.repeatedLine` times (default 5) —
 * consecutively (default; blank lines aside) or anywhere (`repeatedLineMode: "anywhere"`).
 *
 * Errors: repeatedLine below 3 (summaries keep candidates from 3 repeats up).
 */
export function loopOutputs(task: Pick<TaskSummary, "loopCandidates">, options: BreakdownOptions = {}): LoopOutputs {
  const reasons = new Set(
    (options.loops?.finishReasons ?? DEFAULT_BREAKDOWN_OPTIONS.loops.finishReasons).map((r) => r.toLowerCase()),
  );
  const times = options.loops?.repeatedLine ?? DEFAULT_BREAKDOWN_OPTIONS.loops.repeatedLine;
  if (!Number.isInteger(times) || times < MIN_REPEATS_KEPT)
    throw new RangeError(`loops.repeatedLine must be an integer ≥ ${MIN_REPEATS_KEPT}, got ${times}`);
  const anywhere = (options.loops?.repeatedLineMode ?? DEFAULT_BREAKDOWN_OPTIONS.loops.repeatedLineMode) === "anywhere";
  const finishLength: LoopCandidate[] = [];
  const repeatedLine: LoopCandidate[] = [];
  const all: LoopCandidate[] = [];
  for (const candidate of task.loopCandidates) {
    const cut = candidate.finishReason !== undefined && reasons.has(candidate.finishReason.toLowerCase());
    const repeats = (anywhere ? candidate.mostLineRepeats : candidate.longestLineRun) >= times;
    if (cut) finishLength.push(candidate);
    if (repeats) repeatedLine.push(candidate);
    if (cut || repeats) all.push(candidate);
  }
  return { finishLength, repeatedLine, all };
}
