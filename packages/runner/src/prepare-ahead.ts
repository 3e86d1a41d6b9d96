/** How a drain prepares its jobs before they take an endpoint slot. */
export interface PreparationOptions<J> {
  /**
   * The work a job needs before its first model call (its workspace: checkout, masking,
   * shuffling; a repair attempt's instance image). It may throw: the job is then dispatched all
   * the same, and its own run meets (and records) the failure.
   */
  run(job: J): Promise<void>;
  /** Preparations at once (their own pool, apart from the endpoints' slots). */
  concurrency: number;
  /**
   * Jobs prepared or being prepared that have not taken a slot yet, at most: enough to fill
   * every slot as it frees (the caller passes the pool's slots plus `concurrency`), few enough
   * that the work done ahead of a run that stops early stays small.
   */
  ahead: number;
}

/**
 * The preparation of a drain's jobs, in queue order, ahead of their dispatch: at most
 * `concurrency` at once and `ahead` not yet dispatched. A job is ready once its preparation
 * settled (either way); the drain takes a slot only for a ready job, so no model slot is held
 * while a checkout is made or a copy shuffled.
 */
export class PrepareAhead<J> {
  private readonly state = new Map<J, "preparing" | "ready">();
  private readonly preparing = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly options: PreparationOptions<J> | undefined,
    /** The drain's queue, read in order (the drain owns it). */
    private readonly queue: () => readonly J[],
  ) {
    // Below 1 nothing would ever be prepared, and the drain would wait for ever.
    for (const name of ["concurrency", "ahead"] as const) {
      const value = options?.[name];
      if (value !== undefined && (!Number.isInteger(value) || value < 1))
        throw new RangeError(`prepare.${name}: ${value} is not a whole number ≥ 1`);
    }
  }

  /** Starts the preparations the bounds allow, in queue order. */
  fill(): void {
    const options = this.options;
    if (!options || this.stopped) return;
    let notDispatched = this.state.size;
    for (const job of this.queue()) {
      if (this.preparing.size >= options.concurrency || notDispatched >= options.ahead) return;
      if (this.state.has(job)) continue;
      this.state.set(job, "preparing");
      notDispatched += 1;
      const settled: Promise<void> = options
        .run(job)
        .catch(() => undefined)
        .then(() => {
          this.preparing.delete(settled);
          if (this.state.get(job) === "preparing") this.state.set(job, "ready");
          this.fill();
        });
      this.preparing.add(settled);
    }
  }

  /** Whether the job may take a slot now. */
  isReady(job: J): boolean {
    return this.options === undefined || this.state.get(job) === "ready";
  }

  /** The job took a slot: it no longer counts against `ahead`. */
  dispatched(job: J): void {
    this.state.delete(job);
    this.fill();
  }

  /** A job sent back after it ran: prepared already, ready at once. */
  requeued(job: J): void {
    if (this.options) this.state.set(job, "ready");
  }

  /** Settles when the next preparation settles (never, when none is running). */
  settled(): Promise<void> {
    return this.preparing.size === 0 ? new Promise<void>(() => undefined) : Promise.race([...this.preparing]);
  }

  /** Starts no more, and waits for those running (a stopped drain leaves no half-made copy behind it). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.preparing]);
  }
}
