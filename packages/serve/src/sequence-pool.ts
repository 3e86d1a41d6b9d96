/** Thrown when a request would wait beyond the queue's bound: the server answers 503 with `Retry-After`. */
export class QueueFullError extends Error {
  constructor(readonly waiting: number) {
    super(`the server's request queue is full (${waiting} requests waiting); retry later`);
    this.name = "QueueFullError";
  }
}

export interface Lease<T> {
  readonly item: T;
  release(): void;
}

/**
 * N items (the engine's parallel sequences) lent one request at a time, with a bounded FIFO of
 * waiters: a request beyond `maxWaiting` is refused at once rather than queued without limit
 * (vLLM queues without bound; a CPU server that takes minutes per request must say no).
 * `choose` picks among the free items (the engine prefers the sequence whose cache shares the
 * longest prefix with the prompt). An aborted waiter leaves the queue.
 */
export class SequencePool<T> {
  private readonly free: T[];
  private readonly waiters: Array<{
    grant: (item: T) => void;
    reject: (error: Error) => void;
    signal?: AbortSignal;
    onAbort?: () => void;
  }> = [];
  private leased = 0;

  constructor(
    items: readonly T[],
    private readonly maxWaiting: number,
  ) {
    if (items.length === 0) throw new RangeError("a sequence pool needs at least one item");
    this.free = [...items];
  }

  get running(): number {
    return this.leased;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  acquire(options: { signal?: AbortSignal; choose?: (free: readonly T[]) => number } = {}): Promise<Lease<T>> {
    if (options.signal?.aborted) return Promise.reject(abortError());
    if (this.free.length > 0 && this.waiters.length === 0) {
      const index = options.choose?.(this.free) ?? 0;
      const [item] = this.free.splice(index, 1);
      return Promise.resolve(this.lease(item!));
    }
    if (this.waiters.length >= this.maxWaiting) return Promise.reject(new QueueFullError(this.waiters.length));
    return new Promise((resolve, reject) => {
      const waiter: (typeof this.waiters)[number] = {
        grant: (item) => resolve(this.lease(item)),
        reject,
        signal: options.signal,
      };
      if (options.signal) {
        waiter.onAbort = () => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(abortError());
        };
        options.signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  private lease(item: T): Lease<T> {
    this.leased += 1;
    let released = false;
    return {
      item,
      release: () => {
        if (released) return;
        released = true;
        this.leased -= 1;
        const next = this.waiters.shift();
        if (next) {
          if (next.signal && next.onAbort) next.signal.removeEventListener("abort", next.onAbort);
          next.grant(item);
        } else {
          this.free.push(item);
        }
      },
    };
  }
}

function abortError(): Error {
  const error = new Error("the request was aborted while it waited for a sequence");
  error.name = "AbortError";
  return error;
}
