import { type EndpointLease, type EndpointPool, PoolUnavailableError } from "./endpoint-pool.js";
import { PrepareAhead, type PreparationOptions } from "./prepare-ahead.js";

export interface DrainOptions<J> {
  pool: EndpointPool;
  /** The work, in the order it is to be dispatched. */
  jobs: readonly J[];
  /**
   * One job on one lease (released when it settles). `tries` counts this job's runs in this
   * drain, this one included. "retry" puts the job back at the front of the queue, to go to
   * another endpoint when one is free; the caller decides (from `tries`) when to stop asking.
   * It must not throw: a job's failure is the caller's to record.
   */
  run(job: J, lease: EndpointLease, tries: number): Promise<"done" | "retry">;
  /** Asked before each dispatch and once a lease is in hand: true stops taking jobs (a budget is spent). */
  shouldStop?: () => boolean;
  /** Stops taking jobs; jobs in flight finish. */
  signal?: AbortSignal;
  /** Work each job needs before it takes a slot, done ahead on its own pool (`PrepareAhead`). */
  prepare?: PreparationOptions<J>;
}

export interface DrainResult<J> {
  /** Set when every endpoint stayed down for the pool's pause: the pool's reason. */
  unavailable?: string;
  /** True when `shouldStop` or `signal` ended the drain before the queue did. */
  stopped: boolean;
  /** Jobs never finished ("done") in this drain, in queue order. */
  left: J[];
}

interface Queued<J> {
  job: J;
  /** The endpoint that last asked for a retry, passed over when another is free. */
  avoid?: number;
}

/**
 * Runs jobs over an endpoint pool, one lease each, the runner's dispatch loop for every kind of
 * work that talks to model servers (a run's attempts, FGL's scoring). Leases are taken for the
 * queue's head in order (FIFO); a job sent back with "retry" goes first, away from the endpoint
 * that dropped it; dispatching stops on `shouldStop`, `signal`, or the pool giving up
 * (`PoolUnavailableError`), and jobs in flight always finish. With `prepare`, a job takes a slot
 * only once its preparation settled (the first ready job in queue order goes first), so a slot
 * never waits for a checkout.
 */
export async function drainOverPool<J>(options: DrainOptions<J>): Promise<DrainResult<J>> {
  const { pool } = options;
  const queue: Queued<J>[] = options.jobs.map((job) => ({ job }));
  const tries = new Map<J, number>();
  const inFlight = new Set<Promise<void>>();
  const stopped = stoppedBy(options.signal);
  const stopRequested = () => Boolean(options.shouldStop?.()) || Boolean(options.signal?.aborted);
  const ahead = new PrepareAhead(options.prepare, () => queue.map((item) => item.job));
  const firstReady = () => queue.findIndex((item) => ahead.isReady(item.job));
  let unavailable: string | undefined;
  let wasStopped = false;

  while (true) {
    if (stopRequested()) {
      wasStopped = true;
      break;
    }
    if (queue.length === 0) {
      if (inFlight.size === 0) break;
      await Promise.race([...inFlight, stopped]);
      continue;
    }
    ahead.fill();
    const ready = firstReady();
    if (ready < 0) {
      await Promise.race([ahead.settled(), ...inFlight, stopped]);
      continue;
    }
    const waited = await nextLease(pool, queue[ready] as Queued<J>, inFlight, stopped);
    if (waited === "again") continue;
    if ("unavailable" in waited) {
      unavailable = waited.unavailable;
      break;
    }
    const { lease } = waited;
    if (stopRequested()) {
      lease.release();
      wasStopped = true;
      break;
    }
    // The queue may have changed while the lease was awaited: the first ready job now goes.
    const at = firstReady();
    if (at < 0) {
      lease.release();
      continue;
    }
    const item = queue.splice(at, 1)[0] as Queued<J>;
    ahead.dispatched(item.job);
    const n = (tries.get(item.job) ?? 0) + 1;
    tries.set(item.job, n);
    const running: Promise<void> = options
      .run(item.job, lease, n)
      .then((outcome) => {
        if (outcome === "retry") {
          ahead.requeued(item.job);
          queue.unshift({ job: item.job, avoid: lease.index });
        }
      })
      .finally(() => {
        lease.release();
        inFlight.delete(running);
      });
    inFlight.add(running);
  }
  await Promise.allSettled([...inFlight]);
  await ahead.stop();
  return {
    ...(unavailable !== undefined ? { unavailable } : {}),
    stopped: wasStopped,
    left: queue.map((item) => item.job),
  };
}

/**
 * A slot for the queue's head; "again" when the queue changed while waiting (a job sent back by
 * one that ended goes first) or the drain is stopping; the pool's reason when it gave up.
 */
async function nextLease<J>(
  pool: EndpointPool,
  head: Queued<J>,
  inFlight: ReadonlySet<Promise<void>>,
  stopped: Promise<"stopped">,
): Promise<{ lease: EndpointLease } | { unavailable: string } | "again"> {
  const acquiring = pool.acquire(head.avoid !== undefined ? { avoid: head.avoid } : {});
  const changed = [...inFlight].map((p) => p.then(() => "changed" as const));
  const waited = await Promise.race([acquiring.then((lease) => ({ lease })), stopped, ...changed]).catch(
    (error: unknown) => {
      if (error instanceof PoolUnavailableError) return { unavailable: error.message };
      throw error;
    },
  );
  if (waited === "stopped" || waited === "changed") {
    // The slot may still come: it goes straight back.
    void acquiring.then(
      (lease) => lease.release(),
      () => undefined,
    );
    return "again";
  }
  return waited;
}

function stoppedBy(signal: AbortSignal | undefined): Promise<"stopped"> {
  return new Promise<"stopped">((resolve) => {
    if (signal?.aborted) resolve("stopped");
    signal?.addEventListener("abort", () => resolve("stopped"), { once: true });
  });
}
