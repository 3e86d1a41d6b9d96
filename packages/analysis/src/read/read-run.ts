import type { TrajectoryReadOptions } from "../formats/read-options.js";
import { findResolvedLabels, readResolvedLabels } from "../labels/read-resolved-labels.js";
import { labelDisagreements, type ResolvedLabels, resolvedOf } from "../labels/resolved-labels.js";
import type { TaskSummary } from "../model/task-summary.js";
import { createTaskAccumulator, type SummaryOptions } from "../summary/summarize-trajectory.js";
import type { FileProblem } from "./file-problem.js";
import { listTrajectories } from "./list-trajectories.js";
import { type RunFormat, streamTrajectory } from "./read-trajectory.js";

/** A run to analyse: `NAME=FORMAT:DIR` on the command line, with optional labels `--resolved NAME=FILE`. */
export interface RunSpec {
  name: string;
  format: RunFormat;
  dir: string;
  /** Labels given explicitly (CSV, JSON or folder); otherwise they are looked for inside `dir`. */
  resolved?: string;
}

export interface ReadRunOptions extends SummaryOptions, TrajectoryReadOptions {
  /** Read only these instances (others are skipped before parsing). */
  tasks?: ReadonlySet<string>;
  /** Called after each trajectory, e.g. for progress. */
  onTrajectory?: (entry: { path: string; bytes: number; index: number; total: number }) => void;
}

/** A run read from disk: one summary per task, the labels, and what could not be read. */
export interface RunRead {
  name: string;
  format: RunFormat;
  dir: string;
  summaries: TaskSummary[];
  /** Null when no label file was found (give one explicitly). */
  labels: ResolvedLabels | null;
  /** Files that did not parse, repeated instances, label files that disagree; the rest is analysed. */
  problems: FileProblem[];
  /** Trajectories read (files or AutoCodeRover folders) and their bytes. */
  files: number;
  bytes: number;
}

/**
 * Reads a run folder: lists its trajectories (listTrajectories), reads each one step by step
 * and folds it into a TaskSummary (createTaskAccumulator), so memory holds one step of one
 * trajectory plus the summaries whatever the run's size; and finds its resolved labels
 * (`spec.resolved`, else findResolvedLabels inside the folder).
 *
 * A trajectory that does not parse becomes a problem with its path and reason, and the others
 * are still read. When two trajectories name the same instance, the one listed later wins
 * (for AutoCodeRover, the later timestamp in the folder name) and the other is a problem. Label sources that
 * disagree on a task of the run are problems too.
 *
 * Errors: the run folder cannot be read; explicit labels cannot be read.
 */
export async function readRun(spec: RunSpec, options: ReadRunOptions = {}): Promise<RunRead> {
  const entries = (await listTrajectories(spec.dir, spec.format)).filter((entry) => !options.tasks || options.tasks.has(entry.instanceId));
  const problems: FileProblem[] = [];
  const byInstance = new Map<string, TaskSummary>();
  let bytes = 0;
  let files = 0;
  const readOptions: TrajectoryReadOptions = options.maxWholeFileBytes === undefined ? {} : { maxWholeFileBytes: options.maxWholeFileBytes };
  const summaryOptions: SummaryOptions = {
    ...(options.noFilePattern === undefined ? {} : { noFilePattern: options.noFilePattern }),
    ...(options.maxPaths === undefined ? {} : { maxPaths: options.maxPaths }),
  };
  for (const [index, entry] of entries.entries()) {
    const accumulator = createTaskAccumulator(summaryOptions);
    try {
      const header = await streamTrajectory(entry.path, spec.format, (step) => accumulator.add(step), readOptions);
      const summary = accumulator.finish(header);
      if (options.tasks && !options.tasks.has(summary.instanceId)) continue;
      const earlier = byInstance.get(summary.instanceId);
      if (earlier) problems.push({ path: earlier.source, reason: `${summary.instanceId} is also in ${entry.path}, which is used instead` });
      byInstance.set(summary.instanceId, summary);
      files += 1;
      bytes += entry.bytes;
    } catch (error) {
      problems.push({ path: entry.path, reason: error instanceof Error ? error.message : String(error) });
    }
    options.onTrajectory?.({ path: entry.path, bytes: entry.bytes, index, total: entries.length });
  }
  let labels: ResolvedLabels | null;
  if (spec.resolved !== undefined) {
    labels = await readResolvedLabels(spec.resolved, { column: spec.name });
  } else {
    const found = await findResolvedLabels(spec.dir);
    labels = found.labels;
    problems.push(...found.problems);
  }
  if (labels) {
    for (const disagreement of labelDisagreements(labels, byInstance.keys())) {
      problems.push({
        path: disagreement.unresolvedIn[0] ?? spec.dir,
        reason: `${disagreement.instanceId}: resolved per ${disagreement.resolvedIn.join(", ")} but not per ${disagreement.unresolvedIn.join(", ")}; counted as ${resolvedOf(labels, disagreement.instanceId) ? "resolved" : "not resolved"} (the most specific source decides)`,
      });
    }
  }
  return { name: spec.name, format: spec.format, dir: spec.dir, summaries: [...byInstance.values()], labels, problems, files, bytes };
}
