import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defaultThreadCount, WorkerPool } from "@loclab/threads";
import type { PythonImportsResult } from "./python-imports.js";

/** Most threads (the calling one included) an import graph is parsed on by default. */
const MAX_DEFAULT_THREADS = 4;
/** Batches posted to a thread before it answers: two, so it starts the next while its answer travels. */
export const BATCHES_IN_FLIGHT_PER_THREAD = 2;

/** One source's imports, or why tree-sitter could not parse it (the caller decides what that means). */
export type ParsedSource = PythonImportsResult | { error: string };

// The compiled worker sits beside this module in dist/. Run from the TypeScript sources (this
// package's own tests), it does not exist, and callers parse in their own thread.
const WORKER_FILE = fileURLToPath(new URL("./import-parse-worker.js", import.meta.url));

/** Whether Python sources can be parsed on worker threads here (false when run from the sources). */
export function importParseThreadsAvailable(): boolean {
  return existsSync(WORKER_FILE);
}

/** Threads an import graph is parsed on when not told, the calling thread included: the machine's cores, at most 4. */
export function defaultImportParseThreads(): number {
  return defaultThreadCount(MAX_DEFAULT_THREADS);
}

/** The thread parsing a batch stopped (or could not load the grammar), or its pool was closed: the sources themselves may be fine. */
export class ImportParseThreadLost extends Error {
  override name = "ImportParseThreadLost";
}

/**
 * Worker threads that parse batches of Python sources into their imports (`pythonImports`,
 * each thread with its own parser over the same grammar), started on first use: a
 * `WorkerPool` of BATCHES_IN_FLIGHT_PER_THREAD batches per thread. A thread that stops, or
 * cannot load the grammar, fails its batches with ImportParseThreadLost.
 */
export class ImportParsePool {
  private readonly pool: WorkerPool<string[], ParsedSource[]>;

  constructor(options: { threads: number }) {
    this.pool = new WorkerPool({
      file: WORKER_FILE,
      threads: options.threads,
      inFlightPerThread: BATCHES_IN_FLIGHT_PER_THREAD,
      lost: (sources, reason) =>
        new ImportParseThreadLost(`the thread parsing ${sources.length} sources stopped (${reason})`),
    });
  }

  get threads(): number {
    return this.pool.threads;
  }

  /** The imports of each source, in order. */
  parse(sources: string[]): Promise<ParsedSource[]> {
    return this.pool.run(sources);
  }

  /** Stops every thread; batches still queued or being parsed fail with ImportParseThreadLost. */
  close(): Promise<void> {
    return this.pool.close();
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
