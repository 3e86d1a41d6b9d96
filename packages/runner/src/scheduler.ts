import {
  appendCellPrediction,
  appendJsonl,
  isFinalOutcome,
  type RunRecord,
  RunRecordSchema,
  runLayout,
} from "@loclab/schemas";
import type { MendedRun } from "./crash-mending.js";
import type { EndpointLease, EndpointPool } from "./endpoint-pool.js";
import { drainOverPool } from "./pool-queue.js";
import { preparationOf } from "./preparation.js";
import type { RunEvent, RunStopReason, RunSummary } from "./run-events.js";
import type { RunKindSession } from "./run-kind.js";
import type { PlannedAttempt, RunPlan } from "./run-plan.js";
import { addRecord, summarize } from "./run-summary.js";

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
 * Runs the open keys of a plan over the pool (`drainOverPool`), in plan order, each attempt
 * holding one endpoint slot for all its turns, and taking it only once the run kind has
 * prepared what it needs (`preparationOf`: its workspace, its image), on a pool of its own
 * ahead of the slots. Each attempt's record is appended to the ledger when it ends, then its
 * prediction to the cell's file (`appendCellPrediction`). An `infra_error` sends the key back to
 * the front of the queue, to another endpoint if one is free, up to `retry.attemptsPerKey`
 * times in a session; model-caused outcomes are never retried. Dispatching stops when the run's
 * token budget (over the whole ledger) or wall budget (this session) is spent, on `signal`, or
 * when every endpoint stayed down for `retry.pauseSeconds`; attempts in flight always finish and
 * are recorded.
 */
export class Scheduler {
  private readonly tries = new Map<string, number>();
  private readonly started = Date.now();
  private tokensSpent: number;
  private attempts = 0;
  private failures = 0;
  private retries = 0;
  private stoppedBy: RunStopReason | undefined;

  constructor(private readonly options: ScheduleOptions) {
    this.tokensSpent = options.mended.tokensSpent;
  }

  /** Dispatches until every open key is done or the run stops; returns the run's summary. */
  async run(): Promise<RunSummary> {
    const { plan, mended, pool, signal, kind } = this.options;
    const prepare = preparationOf(plan.spec, kind);
    const drained = await drainOverPool({
      pool,
      jobs: plan.attempts.filter((attempt) => !mended.histories.get(attempt.key)?.final),
      run: (attempt, lease) => this.runOne(attempt, lease),
      shouldStop: () => this.budgetSpent(),
      ...(signal ? { signal } : {}),
      ...(prepare ? { prepare } : {}),
    });
    if (drained.unavailable !== undefined)
      this.stop(
        "endpoints-down",
        `${drained.unavailable}; resume with loclab run --resume ${plan.spec.out} once they are back`,
      );
    const summary = summarize(plan, mended.histories, {
      attemptsThisSession: this.attempts,
      failuresThisSession: this.failures,
      retriesThisSession: this.retries,
      ...(this.stoppedBy ? { stoppedBy: this.stoppedBy } : {}),
    });
    this.options.emit({ type: "end", summary });
    return summary;
  }

  /** One attempt on its lease, recorded; "retry" for an `infra_error` with tries left in this session. */
  private async runOne(attempt: PlannedAttempt, lease: EndpointLease): Promise<"done" | "retry"> {
    const { plan, pool, kind, mended, emit } = this.options;
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
      releaseSlot: () => lease.release(),
      onRetry: (retry) => {
        this.retries += 1;
        emit({ type: "retry", cell, instanceId, endpoint: lease.index, retry });
      },
    });
    this.tokensSpent += record.usage.totalTokens ?? 0;
    await commitAttemptRecord(plan, mended, record);
    let requeued = false;
    if (!isFinalOutcome(record.outcome)) {
      this.failures += 1;
      requeued =
        record.outcome === "infra_error" && (this.tries.get(attempt.key) ?? 0) < plan.spec.retry.attemptsPerKey;
    }
    emit({ type: "attempt-end", cell, record, endpoint: lease.index, requeued });
    return requeued ? "retry" : "done";
  }

  private stop(reason: RunStopReason, detail: string): void {
    if (this.stoppedBy) return;
    this.stoppedBy = reason;
    this.options.emit({ type: "stopping", reason, detail });
  }

  private budgetSpent(): boolean {
    const spent = runBudgetSpent(this.options.plan.spec, {
      startedMs: this.started,
      tokensSpent: this.tokensSpent,
      signal: this.options.signal,
      interrupted: "interrupted: attempts in flight finish and are recorded; resume with loclab run --resume",
    });
    if (spent) this.stop(spent.reason, spent.detail);
    return this.stoppedBy !== undefined;
  }
}

/**
 * The commit of one attempt, the same for the local scheduler and the distributed coordinator:
 * its record appended to the ledger (the commit point: what the ledger holds happened), added
 * to the key's history, then its prediction to the cell's file (a kill between the two is
 * mended from the ledger).
 */
export async function commitAttemptRecord(plan: RunPlan, mended: MendedRun, record: RunRecord): Promise<void> {
  await appendJsonl(runLayout.ledger(plan.spec.out), RunRecordSchema.parse(record));
  addRecord(mended.histories, record);
  await appendCellPrediction(plan.spec.out, record);
}

/**
 * Why a run stops taking attempts now, if it does: its wall budget (this session) or token
 * budget (the whole ledger) spent, or the signal (with `interrupted` as the detail). The local
 * scheduler and the distributed coordinator ask it before each dispatch.
 */
export function runBudgetSpent(
  spec: RunPlan["spec"],
  now: { startedMs: number; tokensSpent: number; signal: AbortSignal | undefined; interrupted: string },
): { reason: RunStopReason; detail: string } | undefined {
  const { run } = spec.budgets;
  if (run.wallSeconds !== undefined && Date.now() - now.startedMs >= run.wallSeconds * 1000)
    return { reason: "run-wall-budget", detail: `the run's wall budget of ${run.wallSeconds} s is spent` };
  if (run.tokens !== undefined && now.tokensSpent >= run.tokens)
    return {
      reason: "run-token-budget",
      detail: `the run's token budget of ${run.tokens} is spent (${now.tokensSpent} tokens)`,
    };
  if (now.signal?.aborted) return { reason: "interrupted", detail: now.interrupted };
  return undefined;
}
