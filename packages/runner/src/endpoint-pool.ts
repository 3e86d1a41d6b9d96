import { type HttpProgress, ModelAnswerError, ModelTransportError, urlWithoutCredentials } from "@loclab/openai-http";
import { type EndpointProbe, probeEndpoint } from "./endpoint-probe.js";
import type { EndpointSpec } from "./run-spec.js";

/** One endpoint as the scheduler sees it now. */
export interface EndpointStatus {
  index: number;
  /** Without credentials. */
  baseURL: string;
  model: string;
  maxConcurrency: number;
  weight: number;
  health: "up" | "down";
  /** Why it is down (or the last probe's problem). */
  problem?: string;
  inFlight: number;
  /** `vllm:num_requests_waiting` at the last probe, when the server exposes it. */
  waiting?: number;
  consecutiveFaults: number;
  /** Attempts started here, in this session. */
  dispatched: number;
  /** Times the breaker took it out. */
  outages: number;
}

/** What the pool tells its observer. */
export type PoolEvent =
  | { type: "endpoint-down"; index: number; baseURL: string; reason: string }
  | { type: "endpoint-up"; index: number; baseURL: string }
  | { type: "paused"; reason: string }
  | { type: "unpaused" };

export interface EndpointPoolOptions {
  /** Consecutive transport faults that take an endpoint out. */
  breakerFailures: number;
  /** First probe of a down endpoint; doubles up to `maxProbeMs`. */
  probeMs: number;
  maxProbeMs?: number;
  /** Liveness checks of the endpoints that are up. */
  healthMs: number;
  /** With every endpoint down this long, waiting attempts are refused (`PoolUnavailableError`). */
  pauseMs: number;
  onEvent?: (event: PoolEvent) => void;
  /** Injectable for tests: default `probeEndpoint`. */
  probe?: (endpoint: EndpointSpec) => Promise<EndpointProbe>;
}

/** Every endpoint stayed down for the whole pause: the run stops (and can be resumed). */
export class PoolUnavailableError extends Error {
  override readonly name = "PoolUnavailableError";
}

/** A slot on one endpoint, held for the whole of one attempt (all its turns: prefix caching). */
export interface EndpointLease {
  index: number;
  endpoint: EndpointSpec;
  release(): void;
}

interface Waiter {
  avoid: number | undefined;
  resolve: (lease: EndpointLease) => void;
  reject: (error: Error) => void;
}

interface State extends EndpointStatus {
  spec: EndpointSpec;
  probeDelayMs: number;
  probeTimer?: NodeJS.Timeout;
}

/**
 * The scheduler's view of the model servers (docs/definitions.md §10). Each endpoint has
 * `maxConcurrency` slots; `acquire` gives the least-loaded healthy endpoint with a free slot,
 * load being (in flight + the server's own waiting queue from `/metrics`) ÷ (slots × weight),
 * ties to the one given fewest attempts, and waits (FIFO) when every slot is taken. A lease
 * holds its slot for all of one attempt's turns, so a server's prefix cache keeps serving it.
 *
 * Health: `checkAll` before the start (readiness); every `healthMs` the endpoints that are up
 * are checked again (liveness) and their waiting gauge read. An endpoint is taken out when a
 * check fails or after `breakerFailures` transport faults in a row (`noteFault`, reset by
 * `noteSuccess`: a circuit breaker), then probed after `probeMs`, doubling, and put back when
 * a probe passes. With every endpoint down, acquiring pauses (`paused` event) rather than
 * failing attempts; after `pauseMs` of that, waiters get `PoolUnavailableError`.
 */
export class EndpointPool {
  private readonly states: State[];
  private readonly waiters: Waiter[] = [];
  private healthTimer?: NodeJS.Timeout;
  private pauseTimer?: NodeJS.Timeout;
  private paused = false;
  private pauseExpired = false;
  private stopped = false;
  private running = false;
  private readonly probe: (endpoint: EndpointSpec) => Promise<EndpointProbe>;

  constructor(
    endpoints: readonly EndpointSpec[],
    private readonly options: EndpointPoolOptions,
  ) {
    this.probe = options.probe ?? ((endpoint) => probeEndpoint(endpoint));
    this.states = endpoints.map((spec, index) => this.initialState(spec, index));
  }

  /**
   * An endpoint that joins while the run goes on (a server a cluster scheduler started:
   * `loclab run --slurm`): checked at once, up when its check passes, otherwise probed later
   * like any endpoint that is down. Returns its index and its check.
   */
  async add(spec: EndpointSpec): Promise<{ index: number; probe: EndpointProbe }> {
    const index = this.states.length;
    this.states.push(this.initialState(spec, index));
    const probe = await this.probe(spec);
    const state = this.states[index] as State;
    if (!this.stopped) {
      this.apply(state, probe);
      if (probe.ok) this.options.onEvent?.({ type: "endpoint-up", index, baseURL: state.baseURL });
    }
    return { index, probe };
  }

  /** An endpoint before its first check: down, "not checked yet". */
  private initialState(spec: EndpointSpec, index: number): State {
    return {
      spec,
      index,
      baseURL: urlWithoutCredentials(spec.baseURL),
      model: spec.model,
      maxConcurrency: spec.maxConcurrency,
      weight: spec.weight,
      health: "down",
      problem: "not checked yet",
      inFlight: 0,
      consecutiveFaults: 0,
      dispatched: 0,
      outages: 0,
      probeDelayMs: this.options.probeMs,
    };
  }

  /** Readiness: checks every endpoint now; those that pass are up, the others are probed later. */
  async checkAll(): Promise<EndpointProbe[]> {
    const probes = await Promise.all(this.states.map((state) => this.probe(state.spec)));
    probes.forEach((probe, index) => this.apply(this.states[index] as State, probe));
    this.updatePause();
    return probes;
  }

  /** Starts the liveness checks (and the pause watch: before it, a readiness check with nothing up is the caller's to report). Every timer is cleared by `stop()` (they keep the process alive meanwhile: a paused run waits). */
  start(): void {
    this.running = true;
    this.updatePause();
    this.healthTimer = setInterval(() => void this.checkLive(), this.options.healthMs);
  }

  /** Stops every timer and refuses the waiters. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.healthTimer);
    clearTimeout(this.pauseTimer);
    for (const state of this.states) clearTimeout(state.probeTimer);
    for (const waiter of this.waiters.splice(0)) waiter.reject(new PoolUnavailableError("the run is stopping"));
  }

  snapshot(): EndpointStatus[] {
    return this.states.map(({ spec: _spec, probeDelayMs: _delay, probeTimer: _timer, ...status }) => ({ ...status }));
  }

  get anyUp(): boolean {
    return this.states.some((state) => state.health === "up");
  }

  /** A slot on the best endpoint now, or when one frees up. `avoid`: an endpoint to pass over if another is free (an attempt it just dropped). */
  acquire(options: { avoid?: number } = {}): Promise<EndpointLease> {
    if (this.stopped) return Promise.reject(new PoolUnavailableError("the run is stopping"));
    if (this.pauseExpired)
      return Promise.reject(
        new PoolUnavailableError(`every endpoint has been down for ${Math.round(this.options.pauseMs / 1000)} s`),
      );
    return new Promise((resolve, reject) => {
      this.waiters.push({ avoid: options.avoid, resolve, reject });
      this.dispatch();
    });
  }

  /** A transport fault on `index` (each failed HTTP attempt of the client). */
  noteFault(index: number, reason: string): void {
    const state = this.states[index];
    if (!state) return;
    state.consecutiveFaults += 1;
    if (state.health === "up" && state.consecutiveFaults >= this.options.breakerFailures) {
      this.takeOut(state, `${state.consecutiveFaults} transport faults in a row (last: ${reason})`);
    }
  }

  /** An answered request on `index`. */
  noteSuccess(index: number): void {
    const state = this.states[index];
    if (state) state.consecutiveFaults = 0;
  }

  private lease(state: State): EndpointLease {
    state.inFlight += 1;
    state.dispatched += 1;
    let released = false;
    return {
      index: state.index,
      endpoint: state.spec,
      release: () => {
        if (released) return;
        released = true;
        state.inFlight -= 1;
        this.dispatch();
      },
    };
  }

  private load(state: State): number {
    return (state.inFlight + (state.waiting ?? 0)) / (state.maxConcurrency * state.weight);
  }

  private best(avoid: number | undefined): State | undefined {
    const free = this.states.filter((state) => state.health === "up" && state.inFlight < state.maxConcurrency);
    const preferred = free.filter((state) => state.index !== avoid);
    const pool = preferred.length > 0 ? preferred : free;
    let best: State | undefined;
    for (const state of pool) {
      if (!best) best = state;
      else {
        const byLoad = this.load(state) - this.load(best);
        if (byLoad < 0 || (byLoad === 0 && state.dispatched / state.weight < best.dispatched / best.weight))
          best = state;
      }
    }
    return best;
  }

  private dispatch(): void {
    while (this.waiters.length > 0) {
      const waiter = this.waiters[0] as Waiter;
      const state = this.best(waiter.avoid);
      if (!state) return;
      this.waiters.shift();
      waiter.resolve(this.lease(state));
    }
  }

  private apply(state: State, probe: EndpointProbe): void {
    if (probe.waiting !== undefined) state.waiting = probe.waiting;
    if (probe.ok) {
      const wasDown = state.health === "down" && state.problem !== "not checked yet";
      state.health = "up";
      delete state.problem;
      state.consecutiveFaults = 0;
      state.probeDelayMs = this.options.probeMs;
      clearTimeout(state.probeTimer);
      delete state.probeTimer;
      if (wasDown) this.options.onEvent?.({ type: "endpoint-up", index: state.index, baseURL: state.baseURL });
      this.updatePause();
      this.dispatch();
    } else if (state.health === "up") {
      this.takeOut(state, probe.problem ?? "check failed");
    } else {
      state.problem = probe.problem ?? "check failed";
      this.scheduleProbe(state);
    }
  }

  private takeOut(state: State, reason: string): void {
    state.health = "down";
    state.problem = reason;
    state.outages += 1;
    this.options.onEvent?.({ type: "endpoint-down", index: state.index, baseURL: state.baseURL, reason });
    this.scheduleProbe(state);
    this.updatePause();
  }

  private scheduleProbe(state: State): void {
    if (this.stopped || state.probeTimer) return;
    const delay = state.probeDelayMs;
    state.probeDelayMs = Math.min(delay * 2, this.options.maxProbeMs ?? 60_000);
    state.probeTimer = setTimeout(() => {
      delete state.probeTimer;
      void this.probe(state.spec).then((probe) => this.stopped || this.apply(state, probe));
    }, delay);
  }

  private async checkLive(): Promise<void> {
    await Promise.all(
      this.states
        .filter((state) => state.health === "up")
        .map(async (state) => {
          const probe = await this.probe(state.spec);
          if (!this.stopped && state.health === "up") this.apply(state, probe);
        }),
    );
  }

  /**
   * The pause has run out: every endpoint is probed once more before the run gives up, since
   * the backoff between probes may have left a restarted server unseen for up to a minute.
   */
  private async lastChance(): Promise<void> {
    const probes = await Promise.all(this.states.map((state) => this.probe(state.spec)));
    if (this.stopped) return;
    probes.forEach((probe, index) => {
      if (probe.ok) this.apply(this.states[index] as State, probe);
    });
    if (this.anyUp) return;
    this.pauseExpired = true;
    for (const waiter of this.waiters.splice(0))
      waiter.reject(
        new PoolUnavailableError(
          `every endpoint has been down for ${Math.round(this.options.pauseMs / 1000)} s (and failed a last probe)`,
        ),
      );
  }

  private updatePause(): void {
    if (this.stopped || !this.running) return;
    const down = !this.anyUp;
    if (down && !this.paused) {
      this.paused = true;
      this.options.onEvent?.({
        type: "paused",
        reason: this.states.map((state) => `${state.baseURL}: ${state.problem ?? "down"}`).join("; "),
      });
      this.pauseTimer = setTimeout(() => void this.lastChance(), this.options.pauseMs);
    } else if (!down && this.paused) {
      this.paused = false;
      this.pauseExpired = false;
      clearTimeout(this.pauseTimer);
      this.options.onEvent?.({ type: "unpaused" });
    }
  }
}

/**
 * What a model call on a lease tells the pool's circuit breaker, the same for every kind of
 * work: each retried failure and a final failure that was the server's (transport, or an
 * answer that never parsed) are faults of the endpoint; an answer is a success. A refused
 * request, or an answer that lacks what was asked, is not the endpoint's health.
 */
export function leaseReporter(pool: EndpointPool, index: number) {
  return {
    /** For the client's `onProgress`. */
    onProgress(event: HttpProgress): void {
      if (event.kind === "retrying") pool.noteFault(index, event.retry.error);
    },
    answered(): void {
      pool.noteSuccess(index);
    },
    failed(error: unknown): void {
      if (error instanceof ModelTransportError) pool.noteFault(index, error.errorClass);
      else if (error instanceof ModelAnswerError && error.retryable) pool.noteFault(index, "invalid-json");
    },
  };
}

/** What `leaseReporter` gives. */
export type LeaseReport = ReturnType<typeof leaseReporter>;
