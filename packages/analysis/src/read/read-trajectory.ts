import { readAutoCodeRoverTrajectory } from "../formats/autocoderover.js";
import { readLoclabTrajectory } from "../formats/loclab-trajectory.js";
import { readMiniSweAgentTrajectory } from "../formats/mini-swe-agent.js";
import type { TrajectoryReadOptions } from "../formats/read-options.js";
import { readSherlocTrajectory } from "../formats/sherloc.js";
import { readSweAgentTrajectory } from "../formats/swe-agent.js";
import type { StepSink, Trajectory, TrajectoryHeader, TrajectoryStep } from "../model/trajectory.js";

/**
 * The formats a run folder can be in, as the CLI names them. mini-swe-agent 1.x and 2.x are
 * one run format: each file says which it is. A SHERLOC run is one generation JSONL (or a
 * folder of them), a trajectory per line.
 */
export const RUN_FORMATS = ["loclab", "mini-swe-agent", "swe-agent", "autocoderover", "sherloc"] as const;
export type RunFormat = (typeof RUN_FORMATS)[number];

/**
 * The formats of runs that end in a patch, which the failure breakdown and FGL's candidates
 * read; a SHERLOC run localizes only (read it with `readRun` or `readTrajectory`).
 */
export const REPAIR_RUN_FORMATS = [
  "loclab",
  "mini-swe-agent",
  "swe-agent",
  "autocoderover",
] as const satisfies readonly RunFormat[];

/**
 * Reads one trajectory of `format` step by step: each step goes to `sink` as soon as it is
 * complete, and the rest (outcome, totals, limits) is returned at the end. `path` is the file
 * (loclab `.traj.jsonl`, mini-swe-agent `.traj.json`, SWE-agent `.traj`), for
 * AutoCodeRover the instance folder, for SHERLOC a line of its generation JSONL (`FILE#<start>-<end>`).
 */
export function streamTrajectory(
  path: string,
  format: RunFormat,
  sink: StepSink,
  options: TrajectoryReadOptions = {},
): Promise<TrajectoryHeader> {
  switch (format) {
    case "loclab":
      return readLoclabTrajectory(path, sink);
    case "mini-swe-agent":
      return readMiniSweAgentTrajectory(path, sink, options);
    case "swe-agent":
      return readSweAgentTrajectory(path, sink, options);
    case "autocoderover":
      return readAutoCodeRoverTrajectory(path, sink);
    case "sherloc":
      return readSherlocTrajectory(path, sink);
  }
}

/**
 * Reads one whole trajectory into the internal model, e.g. to look at a task's steps in a
 * notebook. For whole runs use readRun, which keeps one step at a time.
 *
 * @example const t = await readTrajectory("run/django__django-11099.traj", "swe-agent"); t.steps[0].toolCalls[0].name // "search_dir"
 */
export async function readTrajectory(
  path: string,
  format: RunFormat,
  options: TrajectoryReadOptions = {},
): Promise<Trajectory> {
  const steps: TrajectoryStep[] = [];
  const header = await streamTrajectory(path, format, (step) => steps.push(step), options);
  return { ...header, steps };
}
