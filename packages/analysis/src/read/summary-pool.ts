import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { type ResourceLimits, Worker } from "node:worker_threads";
import type { TaskSummary } from "../model/task-summary.js";
import type { SummaryTask } from "./summarize-file.js";
import type { PostedTask } from "./trajectory-worker.js";

/** Most worker threads a pool starts by default. */
const MAX_DEFAULT_THREADS = 4;
/** Files posted to a thread before it answers: two, so it starts the next while its answer travels. */
const IN_FLIGHT_PER_THREAD = 2;
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
  return Math.max(1, Math.min(MAX_DEFAULT_THREADS, availableParallelism()));
}

/** Refuses a number of threads that is not a whole number ≥ 1, naming it. */
export function checkThreadCount(threads: number): void {
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads: ${threads} is not a whole number ≥ 1`);
}

/** The thread reading a file stopped (out of memory, killed): the file itself may be fine. */
export class SummaryThreadLost extends Error {
  override name = "SummaryThreadLost";
}

interface Job {
  task: PostedTask;
  resolve: (summary: TaskSummary) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  inFlight: Job[];
}

/** Options of a pool; the defaults are what readRun uses. */
export interface SummaryPoolOptions {
  threads: number;
  /** Heap limits of each thread (default SUMMARY_THREAD_LIMITS). */
  resourceLimits?: ResourceLimits;
}

/**
 * A fixed number of worker threads that summarize trajectories (summarizeFile) in parallel,
 * each reading one file at a time, started on first use. Idle threads do not keep the process
 * alive. A thread that stops fails the files it held with SummaryThreadLost (the caller may
 * read them itself); the next file starts a new thread.
 */
export class SummaryPool {
  readonly threads: number;
  private readonly resourceLimits: ResourceLimits;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;

  constructor(options: SummaryPoolOptions) {
    checkThreadCount(options.threads);
    this.threads = options.threads;
    this.resourceLimits = options.resourceLimits ?? SUMMARY_THREAD_LIMITS;
  }

  /** Whether any of its threads has started (and loaded the readers, or is loading them). */
  get started(): boolean {
    return this.slots.length > 0;
  }

  summarize(task: SummaryTask): Promise<TaskSummary> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { ...task, id: this.nextId++ }, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every thread; files still queued or being read fail. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error(`${job.task.path}: the reading pool was closed`));
    const slots = this.slots.splice(0);
    for (const slot of slots) for (const job of slot.inFlight.splice(0)) job.reject(new Error(`${job.task.path}: the reading pool was closed`));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The least loaded thread; a new one while fewer than `threads` run and all are busy.
      let slot = this.slots.reduce<Slot | undefined>((best, candidate) => (best === undefined || candidate.inFlight.length < best.inFlight.length ? candidate : best), undefined);
      if ((slot === undefined || slot.inFlight.length > 0) && this.slots.length < this.threads) slot = this.start();
      if (slot === undefined || slot.inFlight.length >= IN_FLIGHT_PER_THREAD) return;
      const job = this.queue.shift() as Job;
      slot.inFlight.push(job);
      slot.worker.ref();
      slot.worker.postMessage(job.task);
    }
  }

  private start(): Slot {
    const worker = new Worker(WORKER_FILE, { resourceLimits: this.resourceLimits });
    const slot: Slot = { worker, inFlight: [] };
    worker.on("message", (answer: { id: number; summary?: TaskSummary; error?: string }) => {
      const index = slot.inFlight.findIndex((job) => job.task.id === answer.id);
      if (index < 0) return;
      const [job] = slot.inFlight.splice(index, 1) as [Job];
      if (slot.inFlight.length === 0) worker.unref();
      if (answer.summary) job.resolve(answer.summary);
      else job.reject(new Error(answer.error ?? `${job.task.path}: no summary`));
      this.dispatch();
    });
    const lost = (reason: string) => {
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      this.slots.splice(index, 1);
      for (const job of slot.inFlight.splice(0)) job.reject(new SummaryThreadLost(`${job.task.path}: the thread reading it stopped (${reason})`));
      this.dispatch();
    };
    worker.on("error", (error) => lost(error.message));
    worker.on("exit", (code) => lost(`exit code ${code}`));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }
}

const shared = new Map<string, SummaryPool>();
const poolKey = (threads: number, resourceLimits: ResourceLimits) => `${threads} ${JSON.stringify(resourceLimits)}`;

/**
 * The process's pool of `threads` threads with these limits, made on first use and kept for
 * later runs, so that its threads start (and load the readers) once per process.
 */
export function sharedSummaryPool(threads: number, resourceLimits: ResourceLimits = SUMMARY_THREAD_LIMITS): SummaryPool {
  const key = poolKey(threads, resourceLimits);
  let pool = shared.get(key);
  if (!pool) {
    pool = new SummaryPool({ threads, resourceLimits });
    shared.set(key, pool);
  }
  return pool;
}

/** Whether the process's pool of `threads` threads with these limits has started its threads. */
export function sharedSummaryPoolStarted(threads: number, resourceLimits: ResourceLimits = SUMMARY_THREAD_LIMITS): boolean {
  return shared.get(poolKey(threads, resourceLimits))?.started ?? false;
}
