import type { ResourceLimits } from "node:worker_threads";
import type { TrajectoryReadOptions } from "../formats/read-options.js";
import { findResolvedLabels, readResolvedLabels } from "../labels/read-resolved-labels.js";
import { labelDisagreements, type ResolvedLabels, resolvedOf } from "../labels/resolved-labels.js";
import type { TaskSummary } from "../model/task-summary.js";
import type { SummaryOptions } from "../summary/summarize-trajectory.js";
import type { FileProblem } from "./file-problem.js";
import { listTrajectories } from "./list-trajectories.js";
import type { RunFormat } from "./read-trajectory.js";
import { type SummaryTask, summarizeFile } from "./summarize-file.js";
import {
  checkThreadCount,
  defaultSummaryThreads,
  SummaryThreadLost,
  sharedSummaryPool,
  sharedSummaryPoolStarted,
  summaryThreadsAvailable,
} from "./summary-pool.js";

/**
 * By default a run is read on worker threads from this many bytes, when the process has not
 * started them yet: each thread loads the readers (about 0.1 s of a core) and warms up, which
 * a smaller run does not pay back on two cores. When this was chosen, on the benchmark's sets
 * (benchmarks/trajectories-streaming.mjs), two cold threads took 0.60 s for a 140 MB run that
 * one thread read in 0.56 s, and 2.05 s for a 752 MB run that took one thread 2.59 s: the
 * lines cross near 220 MB.
 */
export const MIN_THREADED_RUN_BYTES = 256 * 2 ** 20;
/** Once the threads are started, by default a run is read on them from this many bytes. */
export const MIN_THREADED_RUN_BYTES_WARM = 16 * 2 ** 20;
/**
 * On a thread, JSON files above this size are streamed unless the caller chose a size: a
 * whole 16 MiB document would not fit the thread's heap (SUMMARY_THREAD_LIMITS). Both ways
 * of reading give the same summary.
 */
const THREAD_MAX_WHOLE_FILE_BYTES = 4 * 2 ** 20;

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
  /**
   * Worker threads that read the trajectories, one file per thread at a time. Default: the
   * machine's cores, at most 4, for a run of 256 MiB or more, or of 16 MiB or more once the
   * process has started them; smaller runs in this thread. 1 reads in this thread. The result
   * is the same either way, in the same order. From the TypeScript sources (no compiled
   * worker), always this thread.
   */
  threads?: number;
  /**
   * Heap limits of each reading thread (default SUMMARY_THREAD_LIMITS, which kept the benchmark's
   * 1 GiB set under 200 MiB resident). A file that does not fit is read again in the calling thread.
   */
  threadLimits?: ResourceLimits;
  /** Called after each trajectory, in list order, e.g. for progress. */
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
  /** Threads that read them: 1 is the calling thread, more are worker threads (`threads`). */
  threads: number;
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
 * Large runs are read on worker threads (`threads`), one file per thread at a time; the
 * result does not depend on how many.
 *
 * Errors: the run folder cannot be read; explicit labels cannot be read; `threads` is not a
 * whole number ≥ 1.
 */
export async function readRun(spec: RunSpec, options: ReadRunOptions = {}): Promise<RunRead> {
  if (options.threads !== undefined) checkThreadCount(options.threads);
  const entries = (await listTrajectories(spec.dir, spec.format)).filter(
    (entry) => !options.tasks || options.tasks.has(entry.instanceId),
  );
  const problems: FileProblem[] = [];
  const byInstance = new Map<string, TaskSummary>();
  let bytes = 0;
  let files = 0;
  const readOptions: TrajectoryReadOptions =
    options.maxWholeFileBytes === undefined ? {} : { maxWholeFileBytes: options.maxWholeFileBytes };
  const summaryOptions: SummaryOptions = {
    ...(options.noFilePattern === undefined ? {} : { noFilePattern: options.noFilePattern }),
    ...(options.maxPaths === undefined ? {} : { maxPaths: options.maxPaths }),
  };
  const tasks: SummaryTask[] = entries.map((entry) => ({
    path: entry.path,
    format: spec.format,
    readOptions,
    summaryOptions,
  }));
  const runBytes = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  const threads = options.threads ?? defaultThreadsFor(runBytes, options.threadLimits);
  // Every file is queued at once; the pool reads `threads` at a time, and the summaries are
  // taken in list order, so duplicates, problems and progress come out as in one thread.
  const pool =
    threads > 1 && entries.length > 1 && summaryThreadsAvailable()
      ? sharedSummaryPool(threads, options.threadLimits)
      : undefined;
  const threadReadOptions: TrajectoryReadOptions =
    options.maxWholeFileBytes === undefined ? { maxWholeFileBytes: THREAD_MAX_WHOLE_FILE_BYTES } : readOptions;
  const pending = pool
    ? tasks.map((task) => settle(pool.summarize({ ...task, readOptions: threadReadOptions })))
    : undefined;
  for (const [index, entry] of entries.entries()) {
    const task = tasks[index] as SummaryTask;
    let outcome = pending ? await (pending[index] as Promise<Settled>) : await settle(summarizeFile(task));
    // A thread that ran out of memory (or was killed) says nothing about the file: read it here.
    if ("lost" in outcome) outcome = await settle(summarizeFile(task));
    if ("summary" in outcome) {
      const summary = outcome.summary;
      if (!options.tasks || options.tasks.has(summary.instanceId)) {
        const earlier = byInstance.get(summary.instanceId);
        if (earlier)
          problems.push({
            path: earlier.source,
            reason: `${summary.instanceId} is also in ${entry.path}, which is used instead`,
          });
        byInstance.set(summary.instanceId, summary);
        files += 1;
        bytes += entry.bytes;
      }
    } else {
      problems.push({ path: entry.path, reason: "error" in outcome ? outcome.error : outcome.lost });
    }
    options.onTrajectory?.({ path: entry.path, bytes: entry.bytes, index, total: entries.length });
  }
  let labels: ResolvedLabels | null;
  if (spec.resolved !== undefined) {
    labels = await readResolvedLabels(spec.resolved, { column: spec.name });
  } else if (spec.format === "sherloc") {
    // A localization run: nothing to resolve, and its "folder" may be a single file.
    labels = null;
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
  return {
    name: spec.name,
    format: spec.format,
    dir: spec.dir,
    summaries: [...byInstance.values()],
    labels,
    problems,
    files,
    bytes,
    threads: pool?.threads ?? 1,
  };
}

/** Threads for a run of `bytes` when the caller did not say (MIN_THREADED_RUN_BYTES, MIN_THREADED_RUN_BYTES_WARM). */
function defaultThreadsFor(bytes: number, limits: ResourceLimits | undefined): number {
  const threads = defaultSummaryThreads();
  if (threads === 1 || bytes < MIN_THREADED_RUN_BYTES_WARM) return 1;
  return bytes >= MIN_THREADED_RUN_BYTES || sharedSummaryPoolStarted(threads, limits) ? threads : 1;
}

type Settled = { summary: TaskSummary } | { error: string } | { lost: string };

/** A summary or the reason it failed, so that a queued file's failure waits its turn instead of rejecting unheard. */
function settle(promise: Promise<TaskSummary>): Promise<Settled> {
  return promise.then(
    (summary) => ({ summary }),
    (error: unknown) =>
      error instanceof SummaryThreadLost
        ? { lost: error.message }
        : { error: error instanceof Error ? error.message : String(error) },
  );
}
