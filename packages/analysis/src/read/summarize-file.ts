import type { TrajectoryReadOptions } from "../formats/read-options.js";
import type { TaskSummary } from "../model/task-summary.js";
import { createTaskAccumulator, type SummaryOptions } from "../summary/summarize-trajectory.js";
import { type RunFormat, streamTrajectory } from "./read-trajectory.js";

/** One trajectory to summarize: what readRun hands to a thread of its pool (plain data, so it can be posted). */
export interface SummaryTask {
  path: string;
  format: RunFormat;
  readOptions: TrajectoryReadOptions;
  summaryOptions: SummaryOptions;
}

/**
 * Streams one trajectory into its TaskSummary. The one definition readRun uses, whether it
 * reads in its own thread or in a worker of the pool.
 */
export async function summarizeFile(task: SummaryTask): Promise<TaskSummary> {
  const accumulator = createTaskAccumulator(task.summaryOptions);
  const header = await streamTrajectory(task.path, task.format, (step) => accumulator.add(step), task.readOptions);
  return accumulator.finish(header);
}
