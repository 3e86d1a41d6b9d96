import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PythonImportsResult } from "./python-imports.js";

/** Most threads (the calling one included) an import graph is parsed on by default. */
const MAX_DEFAULT_THREADS = 4;
/** Batches posted to a thread before it answers: two, so it starts the next while its answer travels. */
export const BATCHES_IN_FLIGHT_PER_THREAD = 2;

/** A batch of sources as posted to a thread. */
export interface ParseBatch {
  id: number;
  sources: string[];
}

/** One source's imports, or why tree-sitter could not parse it (the caller decides what that means). */
export type ParsedSource = PythonImportsResult | { error: string };

/** A thread's answer: every source's result in order, or why the thread could not parse at all. */
export interface ParseAnswer {
  id: number;
  results?: ParsedSource[];
  failed?: string;
}

// The compiled worker sits beside this module in dist/. Run from the TypeScript sources (this
// package's own tests), it does not exist, and callers parse in their own thread.
const WORKER_FILE = fileURLToPath(new URL("./import-parse-worker.js", import.meta.url));

/** Whether Python sources can be parsed on worker threads here (false when run from the sources). */
export function importParseThreadsAvailable(): boolean {
  return existsSync(WORKER_FILE);
}

/** Threads an import graph is parsed on when not told, the calling thread included: the machine's cores, at most 4. */
export function defaultImportParseThreads(): number {
  return Math.max(1, Math.min(MAX_DEFAULT_THREADS, availableParallelism()));
}

/** The thread parsing a batch stopped (or could not load the grammar): the sources themselves may be fine. */
export class ImportParseThreadLost extends Error {
  override name = "ImportParseThreadLost";
}

interface Job {
  batch: ParseBatch;
  resolve: (results: ParsedSource[]) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  inFlight: Job[];
}

/**
 * Worker threads that parse batches of Python sources into their imports (`pythonImports`,
 * each thread with its own parser over the same grammar), started on first use. Each thread
 * takes up to BATCHES_IN_FLIGHT_PER_THREAD batches; more wait in a queue. Idle threads do not
 * keep the process alive. A thread that stops fails its batches with ImportParseThreadLost.
 */
export class ImportParsePool {
  readonly threads: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;

  constructor(options: { threads: number }) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error(`threads: ${options.threads} is not a whole number ≥ 1`);
    this.threads = options.threads;
  }

  /** The imports of each source, in order. */
  parse(sources: string[]): Promise<ParsedSource[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ batch: { id: this.nextId++, sources }, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every thread; batches still queued or being parsed fail. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new ImportParseThreadLost("the parsing pool was closed"));
    const slots = this.slots.splice(0);
    for (const slot of slots) for (const job of slot.inFlight.splice(0)) job.reject(new ImportParseThreadLost("the parsing pool was closed"));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The least loaded thread; a new one while fewer than `threads` run and all are busy.
      let slot = this.slots.reduce<Slot | undefined>((best, candidate) => (best === undefined || candidate.inFlight.length < best.inFlight.length ? candidate : best), undefined);
      if ((slot === undefined || slot.inFlight.length > 0) && this.slots.length < this.threads) slot = this.start();
      if (slot === undefined || slot.inFlight.length >= BATCHES_IN_FLIGHT_PER_THREAD) return;
      const job = this.queue.shift() as Job;
      slot.inFlight.push(job);
      slot.worker.ref();
      slot.worker.postMessage(job.batch);
    }
  }

  private start(): Slot {
    const worker = new Worker(WORKER_FILE);
    const slot: Slot = { worker, inFlight: [] };
    const lost = (reason: string) => {
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      this.slots.splice(index, 1);
      for (const job of slot.inFlight.splice(0)) job.reject(new ImportParseThreadLost(`the thread parsing ${job.batch.sources.length} sources stopped (${reason})`));
      void worker.terminate();
      this.dispatch();
    };
    worker.on("message", (answer: ParseAnswer) => {
      const index = slot.inFlight.findIndex((job) => job.batch.id === answer.id);
      if (index < 0) return;
      if (answer.failed !== undefined || !answer.results) {
        lost(answer.failed ?? "no results");
        return;
      }
      const [job] = slot.inFlight.splice(index, 1) as [Job];
      if (slot.inFlight.length === 0) worker.unref();
      job.resolve(answer.results);
      this.dispatch();
    });
    worker.on("error", (error) => lost(error.message));
    worker.on("exit", (code) => lost(`exit code ${code}`));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }
}

const shared = new Map<number, ImportParsePool>();

/**
 * The process's pool of `threads` worker threads, made on first use and kept, so that its
 * threads start (and load the grammar) once per process.
 */
export function sharedImportParsePool(threads: number): ImportParsePool {
  let pool = shared.get(threads);
  if (!pool) {
    pool = new ImportParsePool({ threads });
    shared.set(threads, pool);
  }
  return pool;
}
