import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ResourceLimits } from "node:worker_threads";
import { defaultThreadCount, WorkerPool } from "@loclab/threads";
import type { TaskSummary } from "../model/task-summary.js";
import type { SummaryTask } from "./summarize-file.js";

export { checkThreadCount } from "@loclab/threads";

/** Most worker threads a pool starts by default. */
const MAX_DEFAULT_THREADS = 4;
/**
 * Heap limits of each thread. Without them every thread grows its heap as a main thread
 * would: two threads took the benchmark's 1 GiB set to about 250 MiB resident, against about
 * 180 MiB in one thread. With these, about 185 MiB at 1.03–1.11× Python's json.load; a 16 MB
 * young generation was 5–10 % faster at about 200 MiB (benchmarks/trajectories-streaming.mjs,
 * this machine). A file that needs more fails its thread with ERR_WORKER_OUT_OF_MEMORY and is
 * read again in the calling thread (readRun).
 */
export const SUMMARY_THREAD_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 12 };

// The compiled worker sits beside this module in dist/. Run from the TypeScript sources (the
// package's own tests), it does not exist, and readRun reads in its own thread.
const WORKER_FILE = fileURLToPath(new URL("./trajectory-worker.js", import.meta.url));

/** Whether trajectories can be read on worker threads here (false when run from the sources). */
export function summaryThreadsAvailable(): boolean {
  return existsSync(WORKER_FILE);
}

/** Worker threads a pool uses when not told: the machine's cores, at most 4. */
export function defaultSummaryThreads(): number {
  return defaultThreadCount(MAX_DEFAULT_THREADS);
}

/** The thread reading a file stopped (out of memory, killed): the file itself may be fine. */
export class SummaryThreadLost extends Error {
  override name = "SummaryThreadLost";
}

/** Options of a pool; the defaults are what readRun uses. */
export interface SummaryPoolOptions {
  threads: number;
  /** Heap limits of each thread (default SUMMARY_THREAD_LIMITS). */
  resourceLimits?: ResourceLimits;
}

/**
 * A fixed number of worker threads that summarize trajectories (summarizeFile) in parallel,
 * each reading one file at a time (two in flight), started on first use (a `WorkerPool`). A
 * thread that stops fails the files it held with SummaryThreadLost (the caller may read them
 * itself); the next file starts a new thread.
 */
export class SummaryPool {
  private readonly pool: WorkerPool<SummaryTask, TaskSummary>;

  constructor(options: SummaryPoolOptions) {
    this.pool = new WorkerPool({
      file: WORKER_FILE,
      threads: options.threads,
      resourceLimits: options.resourceLimits ?? SUMMARY_THREAD_LIMITS,
      lost: (task, reason) => new SummaryThreadLost(`${task.path}: the thread reading it stopped (${reason})`),
    });
  }

  get threads(): number {
    return this.pool.threads;
  }

  /** Whether any of its threads has started (and loaded the readers, or is loading them). */
  get started(): boolean {
    return this.pool.started;
  }

  summarize(task: SummaryTask): Promise<TaskSummary> {
    return this.pool.run(task);
  }

  /** Stops every thread; files still queued or being read fail with SummaryThreadLost. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

const shared = new Map<string, SummaryPool>();
const poolKey = (threads: number, resourceLimits: ResourceLimits) => `${threads} ${JSON.stringify(resourceLimits)}`;

/**
 * The process's pool of `threads` threads with these limits, made on first use and kept for
 * later runs, so that its threads start (and load the readers) once per process.
 */
export function sharedSummaryPool(
  threads: number,
  resourceLimits: ResourceLimits = SUMMARY_THREAD_LIMITS,
): SummaryPool {
  const key = poolKey(threads, resourceLimits);
  let pool = shared.get(key);
  if (!pool) {
    pool = new SummaryPool({ threads, resourceLimits });
    shared.set(key, pool);
  }
  return pool;
}

/** Whether the process's pool of `threads` threads with these limits has started its threads. */
export function sharedSummaryPoolStarted(
  threads: number,
  resourceLimits: ResourceLimits = SUMMARY_THREAD_LIMITS,
): boolean {
  return shared.get(poolKey(threads, resourceLimits))?.started ?? false;
}
