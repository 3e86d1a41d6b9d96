import { type ResourceLimits, Worker } from "node:worker_threads";
import type { PoolReply, PoolRequest } from "./pool-protocol.js";
import { checkThreadCount } from "./thread-count.js";

export interface WorkerPoolOptions<Request> {
  /** The worker's compiled module (it calls `servePoolRequests`). */
  file: string;
  threads: number;
  /** Heap limits of each thread (default: Node's). */
  resourceLimits?: ResourceLimits;
  /** Requests posted to a thread before it answers (default 2: it starts the next while its answer travels). */
  inFlightPerThread?: number;
  /** The error a request fails with when its thread stops (out of memory, killed, `failed`) or the pool is closed. */
  lost: (request: Request, reason: string) => Error;
}

interface Job<Request, Answer> {
  id: number;
  request: Request;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

interface Slot<Request, Answer> {
  worker: Worker;
  inFlight: Job<Request, Answer>[];
}

/**
 * A fixed number of worker threads answering requests, started on first use, each holding
 * at most `inFlightPerThread` requests (more wait in a queue for the least loaded thread).
 * Idle threads do not keep the process alive. A thread that stops fails the requests it held
 * with the `lost` error (the caller may do them itself); the next request starts a new thread.
 */
export class WorkerPool<Request, Answer> {
  readonly threads: number;
  private readonly options: WorkerPoolOptions<Request>;
  private readonly inFlightPerThread: number;
  private readonly slots: Slot<Request, Answer>[] = [];
  private readonly queue: Job<Request, Answer>[] = [];
  private nextId = 0;

  constructor(options: WorkerPoolOptions<Request>) {
    checkThreadCount(options.threads);
    this.threads = options.threads;
    this.options = options;
    this.inFlightPerThread = options.inFlightPerThread ?? 2;
  }

  /** Whether any of its threads has started (and loaded its modules, or is loading them). */
  get started(): boolean {
    return this.slots.length > 0;
  }

  /** The answer of a thread to `request`. */
  run(request: Request): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, request, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every thread; requests still queued or in flight fail with the `lost` error. */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    for (const job of [...this.queue.splice(0), ...slots.flatMap((slot) => slot.inFlight.splice(0))])
      job.reject(this.options.lost(job.request, "the pool was closed"));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The least loaded thread; a new one while fewer than `threads` run and all are busy.
      let slot = this.slots.reduce<Slot<Request, Answer> | undefined>(
        (best, candidate) =>
          best === undefined || candidate.inFlight.length < best.inFlight.length ? candidate : best,
        undefined,
      );
      if ((slot === undefined || slot.inFlight.length > 0) && this.slots.length < this.threads) slot = this.start();
      if (slot === undefined || slot.inFlight.length >= this.inFlightPerThread) return;
      const job = this.queue.shift() as Job<Request, Answer>;
      slot.inFlight.push(job);
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, request: job.request } satisfies PoolRequest<Request>);
    }
  }

  private start(): Slot<Request, Answer> {
    const worker = new Worker(
      this.options.file,
      this.options.resourceLimits ? { resourceLimits: this.options.resourceLimits } : {},
    );
    const slot: Slot<Request, Answer> = { worker, inFlight: [] };
    const lost = (reason: string) => {
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      this.slots.splice(index, 1);
      for (const job of slot.inFlight.splice(0)) job.reject(this.options.lost(job.request, reason));
      void worker.terminate();
      this.dispatch();
    };
    worker.on("message", (reply: PoolReply<Answer>) => {
      if (reply.failed !== undefined) return lost(reply.failed);
      const index = slot.inFlight.findIndex((job) => job.id === reply.id);
      if (index < 0) return;
      const [job] = slot.inFlight.splice(index, 1) as [Job<Request, Answer>];
      if (slot.inFlight.length === 0) worker.unref();
      if (reply.error !== undefined) job.reject(new Error(reply.error));
      else job.resolve(reply.answer as Answer);
      this.dispatch();
    });
    worker.on("error", (error) => lost(error.message));
    worker.on("exit", (code) => lost(`exit code ${code}`));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }
}
