import type { EndpointLease, EndpointPool } from "@loclab/runner";
import type { EndpointSlots, HeldSlot } from "./endpoint-slots.js";

/** A lease on this worker's pool together with the run-wide slot on the same endpoint. */
export interface GatedLease {
  lease: EndpointLease;
  slot: HeldSlot;
  release(): Promise<void>;
}

/**
 * A slot on an endpoint that is free both here (the worker's own pool: health, circuit breaker,
 * least-loaded choice) and across all workers (`EndpointSlots`). When the pool's choice is full
 * run-wide, the lease goes back and the next try passes over that endpoint if another is free;
 * waits grow from 25 ms to 1 s with jitter, so idle workers poll Redis a few times a second.
 */
export async function acquireGated(
  pool: EndpointPool,
  slots: EndpointSlots,
  holder: string,
  signal?: AbortSignal,
): Promise<GatedLease> {
  let avoid: number | undefined;
  let waitMs = 25;
  while (true) {
    if (signal?.aborted) throw new Error("the worker is stopping");
    const lease = await pool.acquire(avoid !== undefined ? { avoid } : {});
    let slot: HeldSlot | undefined;
    try {
      slot = await slots.tryAcquire(lease.index, holder);
    } catch (error) {
      lease.release();
      throw error;
    }
    if (slot) {
      const held = slot;
      // Once: an attempt may free its slot early (before its evaluation), and again at its end.
      let releasing: Promise<void> | undefined;
      return {
        lease,
        slot: held,
        release: () => {
          releasing ??= (async () => {
            lease.release();
            await held.release();
          })();
          return releasing;
        },
      };
    }
    lease.release();
    avoid = lease.index;
    await new Promise((resolve) => setTimeout(resolve, waitMs * (0.5 + Math.random())));
    waitMs = Math.min(waitMs * 2, 1000);
  }
}
