import { appendCellPrediction, appendJsonl, isFinalOutcome, RunRecordSchema, runLayout } from "@loclab/schemas";
import type { MendedRun } from "./crash-mending.js";
import { type EndpointLease, type EndpointPool, PoolUnavailableError } from "./endpoint-pool.js";
import type { RunEvent, RunStopReason, RunSummary } from "./run-events.js";
import type { RunKindSession } from "./run-kind.js";
import type { PlannedAttempt, RunPlan } from "./run-plan.js";
import { addRecord, summarize } from "./run-summary.js";

interface QueueItem {
  attempt: PlannedAttempt;
  /** The endpoint that last dropped it, passed over when another is free. */
  avoid?: number;
}

export interface ScheduleOptions {
  plan: RunPlan;
  pool: EndpointPool;
  kind: RunKindSession;
  mended: MendedRun;
  /** Per endpoint, its context window, when it says. */
  windows: readonly (number | undefined)[];
  emit: (event: RunEvent) => void;
  signal?: AbortSignal;
}

/**
 * Runs the open keys of a plan over the pool, in plan order, each attempt holding one endpoint
 * slot for all its turns. Each attempt's record is appended to the ledger when it ends, then its
 * prediction to the cell's file (`appendCellPrediction`). An `infra_error` sends the key back to
 * the front of the queue, to another endpoint if one is free, up to `retry.attemptsPerKey`
 * times in a session; model-caused outcomes are never retried. Dispatching stops when the run's
 * token budget (over the whole ledger) or wall budget (this session) is spent, on `signal`, or
 * when every endpoint stayed down for `retry.pauseSeconds`; attempts in flight always finish and
 * are recorded.
 */
export class Scheduler {
  private readonly queue: QueueItem[];
  private readonly ledgerPath: string;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly tries = new Map<string, number>();
  private readonly started = Date.now();
  private tokensSpent: number;
  private attempts = 0;
  private failures = 0;
  private retries = 0;
  private stoppedBy: RunStopReason | undefined;

  constructor(private readonly options: ScheduleOptions) {
    const { plan, mended } = options;
    this.queue = plan.attempts
      .filter((attempt) => !mended.histories.get(attempt.key)?.final)
      .map((attempt) => ({ attempt }));
    this.ledgerPath = runLayout.ledger(plan.spec.out);
    this.tokensSpent = mended.tokensSpent;
  }

  /** Dispatches until every open key is done or the run stops; returns the run's summary. */
  async run(): Promise<RunSummary> {
    const stopped = this.stoppedSignal();
    while (!this.budgetSpent()) {
      if (this.queue.length === 0) {
        if (this.inFlight.size === 0) break;
        await Promise.race([...this.inFlight, stopped]);
        continue;
      }
      const lease = await this.nextLease(stopped);
      if (lease === "again") continue;
      if (lease === "stop") break;
      if (this.budgetSpent()) {
        lease.release();
        break;
      }
      const item = this.queue.shift() as QueueItem;
      const running: Promise<void> = this.runOne(item, lease).finally(() => {
        lease.release();
        this.inFlight.delete(running);
      });
      this.inFlight.add(running);
    }
    await Promise.allSettled([...this.inFlight]);
    const summary = summarize(this.options.plan, this.options.mended.histories, {
      attemptsThisSession: this.attempts,
      failuresThisSession: this.failures,
      retriesThisSession: this.retries,
      ...(this.stoppedBy ? { stoppedBy: this.stoppedBy } : {}),
    });
    this.options.emit({ type: "end", summary });
    return summary;
  }

  /**
   * A slot for the queue's first key; `again` when the queue changed while waiting (a key
   * requeued by an attempt that ended goes first) or the run is stopping, `stop` when every
   * endpoint stayed down.
   */
  private async nextLease(stopped: Promise<"stopped">): Promise<EndpointLease | "again" | "stop"> {
    const item = this.queue[0] as QueueItem;
    const acquiring = this.options.pool.acquire(item.avoid !== undefined ? { avoid: item.avoid } : {});
    const changed = [...this.inFlight].map((p) => p.then(() => "changed" as const));
    const waited = await Promise.race([acquiring.then((lease) => ({ lease })), stopped, ...changed]).catch(
      (error: unknown) => {
        if (error instanceof PoolUnavailableError) return { unavailable: error.message };
        throw error;
      },
    );
    if (waited === "stopped" || waited === "changed") {
      void acquiring.then(
        (lease) => lease.release(),
        () => undefined,
      );
      return "again";
    }
    if ("unavailable" in waited) {
      const dir = this.options.plan.spec.out;
      this.stop("endpoints-down", `${waited.unavailable}; resume with loclab run --resume ${dir} once they are back`);
      return "stop";
    }
    return waited.lease;
  }

  private async runOne(item: QueueItem, lease: EndpointLease): Promise<void> {
    const { plan, pool, kind, mended, emit } = this.options;
    const { attempt } = item;
    const n = (mended.lastAttempt.get(attempt.key) ?? 0) + 1;
    mended.lastAttempt.set(attempt.key, n);
    this.attempts += 1;
    this.tries.set(attempt.key, (this.tries.get(attempt.key) ?? 0) + 1);
    const { cellLabel: cell } = attempt;
    const instanceId = attempt.instance.instance_id;
    emit({ type: "attempt-start", key: attempt.key, cell, instanceId, attempt: n, endpoint: lease.index });
    const record = await kind.runAttempt({
      attempt,
      n,
      lease,
      pool,
      window: this.options.windows[lease.index],
      onRetry: (retry) => {
        this.retries += 1;
        emit({ type: "retry", cell, instanceId, endpoint: lease.index, retry });
      },
    });
    this.tokensSpent += record.usage.totalTokens ?? 0;
    await appendJsonl(this.ledgerPath, RunRecordSchema.parse(record));
    addRecord(mended.histories, record);
    await appendCellPrediction(plan.spec.out, record);
    let requeued = false;
    if (!isFinalOutcome(record.outcome)) {
      this.failures += 1;
      if (record.outcome === "infra_error" && (this.tries.get(attempt.key) ?? 0) < plan.spec.retry.attemptsPerKey) {
        this.queue.unshift({ attempt, avoid: lease.index });
        requeued = true;
      }
    }
    emit({ type: "attempt-end", cell, record, endpoint: lease.index, requeued });
  }

  private stoppedSignal(): Promise<"stopped"> {
    const { signal } = this.options;
    return new Promise<"stopped">((resolve) => {
      if (signal?.aborted) resolve("stopped");
      signal?.addEventListener("abort", () => resolve("stopped"), { once: true });
    });
  }

  private stop(reason: RunStopReason, detail: string): void {
    if (this.stoppedBy) return;
    this.stoppedBy = reason;
    this.options.emit({ type: "stopping", reason, detail });
  }

  private budgetSpent(): boolean {
    const { run } = this.options.plan.spec.budgets;
    if (run.wallSeconds !== undefined && Date.now() - this.started >= run.wallSeconds * 1000)
      this.stop("run-wall-budget", `the run's wall budget of ${run.wallSeconds} s is spent`);
    if (run.tokens !== undefined && this.tokensSpent >= run.tokens)
      this.stop("run-token-budget", `the run's token budget of ${run.tokens} is spent (${this.tokensSpent} tokens)`);
    if (this.options.signal?.aborted)
      this.stop(
        "interrupted",
        "interrupted: attempts in flight finish and are recorded; resume with loclab run --resume",
      );
    return this.stoppedBy !== undefined;
  }
}
