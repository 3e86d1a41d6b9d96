import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defaultThreadCount, WorkerPool } from "@loclab/threads";
import { type ShuffleReport, type ShuffleRepositoryOptions, shuffleRepository } from "./shuffle-checkout.js";

// The compiled worker sits beside this module in dist/. Run from the TypeScript sources (the
// package's own tests), it does not exist, and the copy is made in the calling thread.
const WORKER_FILE = fileURLToPath(new URL("./shuffle-worker.js", import.meta.url));

/** Most threads the shared pool starts: shuffling is CPU work (parsing every Python file). */
const MAX_THREADS = 4;

/** The thread making a copy stopped (out of memory, killed): the copy's temporary folder is the caller's to remove. */
export class ShuffleThreadLost extends Error {
  override name = "ShuffleThreadLost";
}

let shared: WorkerPool<ShuffleRepositoryOptions, ShuffleReport> | undefined;

/**
 * `shuffleRepository` on a worker thread of a pool shared by the process (the machine's
 * cores, at most 4; one copy per thread at a time), so that a run's event loop keeps serving
 * its model requests while a copy is parsed and written. Falls back to the calling thread
 * where the compiled worker is absent (run from the sources). Idle threads do not keep the
 * process alive.
 */
export function shuffleRepositoryOffThread(options: ShuffleRepositoryOptions): Promise<ShuffleReport> {
  if (!existsSync(WORKER_FILE)) return shuffleRepository(options);
  shared ??= new WorkerPool<ShuffleRepositoryOptions, ShuffleReport>({
    file: WORKER_FILE,
    threads: defaultThreadCount(MAX_THREADS),
    inFlightPerThread: 1,
    lost: (request, reason) =>
      new ShuffleThreadLost(`the thread shuffling ${request.repo} into ${request.out} stopped: ${reason}`),
  });
  return shared.run(options);
}
