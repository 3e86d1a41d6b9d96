import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  commitAttemptRecord,
  lastSessionSpec,
  openRunSession,
  type PlannedAttempt,
  type RunOptions,
  type RunSession,
  type RunSpec,
  type RunStopReason,
  type RunSummary,
  runBudgetSpent,
  summarize,
} from "@loclab/runner";
import { isFinalOutcome, readRunManifest } from "@loclab/schemas";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { type AttemptJob, type ExecutionResult, ExecutionResultSchema, type QueuedRun } from "./attempt-job.js";
import { placeFiles } from "./carried-files.js";
import { DEFAULT_QUEUE_NAME, attemptJobId, queueRunId, runKeys } from "./queue-keys.js";
import { connectRedis } from "./redis-connection.js";
import { placeSharedFromRedis } from "./shared-stages.js";
import { commitDecision, recordDuplicate } from "./result-commit.js";

export interface DistributedRunOptions extends RunOptions {
  /** `redis://HOST:PORT`; the password from LOCLAB_REDIS_PASSWORD. */
  queue: string;
  queueName?: string;
  /** How long one blocking read of the results waits before the coordinator looks at its jobs. Default 2 s. */
  pollMs?: number;
}

/** What the queue added to the run: counts and the per-job overhead it measured. */
export interface QueueFacts {
  runId: string;
  queueName: string;
  /** Jobs added in this session, and open keys whose job was already waiting or running. */
  enqueued: number;
  alreadyQueued: number;
  /** Results read: committed, duplicate executions (in duplicates.jsonl), replays of a committed line. */
  committed: number;
  duplicates: number;
  replays: number;
  /** Jobs BullMQ gave up on (stalled too often, or refused by every worker): their keys stay open. */
  failedJobs: number;
  /** Jobs found missing (Redis lost them) and added again. */
  requeued: number;
  /** Milliseconds from a job's add to a worker taking it, and from its end on the worker to the commit here (medians and maxima). */
  enqueueToStartMs: { median: number; max: number };
  finishToCommitMs: { median: number; max: number };
}

export interface DistributedRunSummary extends RunSummary {
  queue: QueueFacts;
}

/**
 * Runs a run spec on the workers of a queue (docs/guide/distributed-runs.md): the coordinator
 * opens the run folder as `startRun` does (plan, lock, endpoints, manifest, session line,
 * crash mending), stores the spec in Redis for the workers, adds one BullMQ job per open key
 * (job id `<run id>.<key>`), then reads the run's results stream and commits each result into the run
 * folder: the folder stays single-writer, on the coordinator's disk, and the ledger the commit
 * point as locally. Delivery is at least once (a stalled job runs again); `commitDecision` makes
 * the commit exactly once, and counts the rest in `duplicates.jsonl`. Results the workers report
 * while the coordinator is away wait in Redis and are committed by the next session
 * (`loclab run --resume DIR --queue …`).
 */
export async function startDistributedRun(
  spec: RunSpec,
  options: DistributedRunOptions,
): Promise<DistributedRunSummary> {
  const session = await openRunSession(spec, options);
  const emit = session.emit;
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const redis = connectRedis(options.queue, (state, detail) =>
    emit({ type: "note", message: state === "down" ? `Redis is away (${detail}); waiting` : "Redis is back" }),
  );
  const reader = connectRedis(options.queue);
  const queueConnection = connectRedis(options.queue);
  const queue = new Queue(queueName, { connection: queueConnection });
  try {
    const manifest = await readRunManifest(spec.out);
    if (!manifest) throw new Error(`${spec.out}: no manifest.json after opening the run`);
    const runId = queueRunId(spec.out, manifest.startedAt);
    const coordinator = new Coordinator(session, { ...options, redis, reader, queue, runId, queueName });
    return await coordinator.run();
  } finally {
    await queue.close().catch(() => undefined);
    // BullMQ leaves a connection it was given open on close.
    queueConnection.disconnect();
    reader.disconnect();
    await redis.quit().catch(() => undefined);
    await session.close();
  }
}

interface CoordinatorOptions extends Omit<DistributedRunOptions, "queue"> {
  redis: Redis;
  reader: Redis;
  queue: Queue;
  runId: string;
  queueName: string;
}

class Coordinator {
  private readonly keys;
  /** The plan's attempts by key: a result names its key, and a run may have tens of thousands. */
  private readonly attempts: ReadonlyMap<string, PlannedAttempt>;
  private readonly pending = new Set<string>();
  private readonly suspect = new Set<string>();
  private readonly started = Date.now();
  private readonly toStart: number[] = [];
  private readonly toCommit: number[] = [];
  private readonly facts: Omit<QueueFacts, "enqueueToStartMs" | "finishToCommitMs">;
  private lastId = "0-0";
  private tokensSpent: number;
  private failures = 0;
  private stoppedBy: RunStopReason | undefined;
  private dequeued = false;

  constructor(
    private readonly session: RunSession,
    private readonly options: CoordinatorOptions,
  ) {
    this.keys = runKeys(options.runId);
    this.attempts = new Map(session.plan.attempts.map((attempt) => [attempt.key, attempt]));
    this.tokensSpent = session.mended.tokensSpent;
    this.facts = {
      runId: options.runId,
      queueName: options.queueName,
      enqueued: 0,
      alreadyQueued: 0,
      committed: 0,
      duplicates: 0,
      replays: 0,
      failedJobs: 0,
      requeued: 0,
    };
  }

  async run(): Promise<DistributedRunSummary> {
    const { plan, mended, emit } = this.session;
    const queued: QueuedRun = { kind: plan.spec.kind ?? "localization", spec: plan.spec as Record<string, unknown> };
    await this.options.redis.set(this.keys.spec, JSON.stringify(queued));
    // Results reported while no coordinator was reading (an earlier session's) go in first.
    await this.readResults(0);
    await this.enqueueOpen();
    emit({
      type: "note",
      message: `queue ${this.options.queueName} (run ${this.options.runId}): ${this.facts.enqueued} job(s) added, ${this.facts.alreadyQueued} already queued; waiting for workers (loclab worker --queue …)`,
    });
    let lastCheck = 0;
    while (this.pending.size > 0) {
      if (!this.dequeued && this.budgetSpent()) await this.dequeueWaiting();
      await this.readResults(this.options.pollMs ?? 2000);
      if (Date.now() - lastCheck >= (this.options.pollMs ?? 2000)) {
        lastCheck = Date.now();
        await this.checkJobs();
      }
    }
    const summary: DistributedRunSummary = {
      ...summarize(plan, mended.histories, {
        attemptsThisSession: this.facts.committed,
        failuresThisSession: this.failures,
        retriesThisSession: 0,
        ...(this.stoppedBy ? { stoppedBy: this.stoppedBy } : {}),
      }),
      queue: { ...this.facts, enqueueToStartMs: spread(this.toStart), finishToCommitMs: spread(this.toCommit) },
    };
    emit({ type: "end", summary });
    return summary;
  }

  /** One job per open key; a key whose job waits or runs already is left to it, one that ended is added again. */
  private async enqueueOpen(): Promise<void> {
    const { plan, mended } = this.session;
    const { queue, runId } = this.options;
    const open = plan.attempts.filter((attempt) => !mended.histories.get(attempt.key)?.final).map((a) => a.key);
    const toAdd: string[] = [];
    for (let i = 0; i < open.length; i += 200) {
      const chunk = open.slice(i, i + 200);
      const states = await Promise.all(
        chunk.map(async (key) => {
          const existing = await queue.getJob(attemptJobId(runId, key));
          if (!existing) return "absent";
          const state = await existing.getState();
          if (state === "completed" || state === "failed") {
            await existing.remove();
            return "absent";
          }
          return "queued";
        }),
      );
      chunk.forEach((key, j) => {
        this.pending.add(key);
        if (states[j] === "queued") this.facts.alreadyQueued += 1;
        else toAdd.push(key);
      });
    }
    for (let i = 0; i < toAdd.length; i += 500)
      await queue.addBulk(toAdd.slice(i, i + 500).map((key) => this.job(key)));
    this.facts.enqueued += toAdd.length;
  }

  /** Reads the results stream (blocking up to `blockMs` when it is empty) and commits what it holds. */
  private async readResults(blockMs: number): Promise<void> {
    const { reader } = this.options;
    while (true) {
      const read = (
        blockMs > 0
          ? await reader.xread("COUNT", 100, "BLOCK", blockMs, "STREAMS", this.keys.results, this.lastId)
          : await reader.xread("COUNT", 100, "STREAMS", this.keys.results, this.lastId)
      ) as [string, [string, string[]][]][] | null;
      const entries = read?.[0]?.[1] ?? [];
      if (entries.length === 0) return;
      for (const [id, fields] of entries) {
        await this.commitEntry(id, fields);
        this.lastId = id;
      }
      blockMs = 0;
    }
  }

  private async commitEntry(id: string, fields: string[]): Promise<void> {
    const { plan, mended, emit } = this.session;
    const text = fields[fields.indexOf("result") + 1];
    let value: unknown;
    try {
      value = JSON.parse(text ?? "null");
    } catch {
      value = undefined;
    }
    const parsed = ExecutionResultSchema.safeParse(value);
    if (!parsed.success) {
      emit({
        type: "note",
        message: `results stream entry ${id} is not a result (${value === undefined ? "not JSON" : parsed.error.issues[0]?.message}); set aside`,
      });
      await this.options.redis.xdel(this.keys.results, id);
      return;
    }
    const result = parsed.data;
    const history = mended.histories.get(result.key);
    const decision = commitDecision(history, result);
    if (decision === "commit") {
      await placeFiles(plan.spec.out, result.files);
      // The localizer stage the attempt used, when no result has brought it yet (its worker was
      // killed after publishing it, or has not sent its own attempt yet): from the run's hash.
      const stage = result.record.repair?.handOff?.localization;
      if (stage && !existsSync(join(plan.spec.out, stage.path)))
        await placeSharedFromRedis(this.options.redis, this.keys.shared, plan.spec.out, [
          stage.path,
          ...(stage.trajectory ? [stage.trajectory] : []),
        ]);
      await commitAttemptRecord(plan, mended, result.record);
      mended.lastAttempt.set(result.key, Math.max(mended.lastAttempt.get(result.key) ?? 0, result.attempt));
      this.facts.committed += 1;
      this.tokensSpent += result.record.usage.totalTokens ?? 0;
      if (!isFinalOutcome(result.record.outcome)) this.failures += 1;
      this.toStart.push(result.startedAt - result.enqueuedAt);
      this.toCommit.push(Date.now() - result.finishedAt);
      const cell = this.attempts.get(result.key)?.cellLabel ?? "?";
      const endpoint = result.endpoint ?? 0;
      emit({
        type: "attempt-start",
        key: result.key,
        cell,
        instanceId: result.record.instanceId,
        attempt: result.attempt,
        endpoint,
      });
      emit({ type: "attempt-end", cell, record: result.record, endpoint, requeued: result.willRetry });
    } else if (decision === "duplicate") {
      await recordDuplicate(plan.spec.out, result, history);
      this.facts.duplicates += 1;
      emit({
        type: "note",
        message: `duplicate execution of ${result.record.instanceId} attempt ${result.attempt} on ${result.worker} (${result.record.outcome}): counted in duplicates.jsonl, not committed`,
      });
    } else this.facts.replays += 1;
    if (!result.willRetry) this.pending.delete(result.key);
    // Deleted only once committed: a coordinator killed before this line reads it again (a replay).
    await this.options.redis.xdel(this.keys.results, id);
  }

  /**
   * Jobs of pending keys that BullMQ gave up on (its failed list), and jobs Redis lost: when the
   * queue holds nothing waiting or running yet keys still wait for a result, twice in a row with
   * a read of the results in between, those keys' jobs are added again. A few Redis calls per
   * poll, whatever the number of keys.
   */
  private async checkJobs(): Promise<void> {
    const { queue, runId } = this.options;
    const counts = await queue.getJobCounts(
      "waiting",
      "active",
      "delayed",
      "prioritized",
      "paused",
      "waiting-children",
      "failed",
    );
    if ((counts.failed ?? 0) > 0) {
      const prefix = `${runId}.`;
      for (const job of await queue.getFailed(0, -1)) {
        const key = job?.id?.startsWith(prefix) ? job.id.slice(prefix.length) : undefined;
        if (key === undefined || !this.pending.has(key)) continue;
        this.pending.delete(key);
        this.facts.failedJobs += 1;
        this.session.emit({
          type: "note",
          message: `job for key ${key.slice(0, 12)}… failed on the queue (${job.failedReason || "no reason"}); the key stays open: resume to try again`,
        });
      }
    }
    const live = Object.entries(counts)
      .filter(([state]) => state !== "failed")
      .reduce((sum, [, n]) => sum + (n ?? 0), 0);
    if (live > 0 || this.pending.size === 0) {
      this.suspect.clear();
      return;
    }
    const lost = [...this.pending].filter((key) => this.suspect.has(key));
    for (const key of this.pending) this.suspect.add(key);
    if (lost.length === 0) return;
    if (this.dequeued) {
      for (const key of lost) this.pending.delete(key);
      return;
    }
    await queue.addBulk(lost.map((key) => this.job(key)));
    for (const key of lost) this.suspect.delete(key);
    this.facts.requeued += lost.length;
    this.session.emit({
      type: "note",
      message: `${lost.length} job(s) were missing from the queue without a result (Redis lost them?): added again`,
    });
  }

  /** The BullMQ job of one key: its id, data, and the retries of infrastructure failures. */
  private job(key: string) {
    const { runId } = this.options;
    const { retry } = this.session.plan.spec;
    const firstAttempt = (this.session.mended.lastAttempt.get(key) ?? 0) + 1;
    const data: AttemptJob = { runId, key, firstAttempt };
    return {
      name: "attempt",
      data,
      opts: {
        jobId: attemptJobId(runId, key),
        // Infrastructure failures are tried again as locally (attemptsPerKey); model outcomes never are.
        attempts: retry.attemptsPerKey,
        backoff: { type: "exponential", delay: Math.max(1, retry.backoffSeconds * 1000) },
        removeOnComplete: true,
        removeOnFail: false,
      },
    };
  }

  /** A budget spent or the signal: jobs not yet taken are taken off the queue; those running end and are committed. */
  private async dequeueWaiting(): Promise<void> {
    this.dequeued = true;
    const { queue, runId } = this.options;
    const keys = [...this.pending];
    for (let i = 0; i < keys.length; i += 200)
      await Promise.all(
        keys.slice(i, i + 200).map(async (key) => {
          const job = await queue.getJob(attemptJobId(runId, key));
          if (!job) return;
          const state = await job.getState();
          if (["waiting", "delayed", "prioritized", "waiting-children"].includes(state)) {
            await job.remove().catch(() => undefined);
            this.pending.delete(key);
          }
        }),
      );
  }

  private budgetSpent(): boolean {
    const spent = runBudgetSpent(this.session.plan.spec, {
      startedMs: this.started,
      tokensSpent: this.tokensSpent,
      signal: this.options.signal,
      interrupted:
        "interrupted: jobs not yet taken are off the queue; those running finish and are committed; resume with loclab run --resume DIR --queue …",
    });
    if (spent) this.stop(spent.reason, spent.detail);
    return this.stoppedBy !== undefined;
  }

  private stop(reason: RunStopReason, detail: string): void {
    if (this.stoppedBy) return;
    this.stoppedBy = reason;
    this.session.emit({ type: "stopping", reason, detail });
  }
}

function spread(values: readonly number[]): { median: number; max: number } {
  if (values.length === 0) return { median: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median, max: sorted.at(-1) as number };
}

export type { ExecutionResult };

/** `resumeRun` on the queue: the run in `dir` with its last session's spec, its open keys enqueued (those still queued left as they are). */
export async function resumeDistributedRun(
  dir: string,
  options: DistributedRunOptions,
): Promise<DistributedRunSummary> {
  return startDistributedRun(await lastSessionSpec(dir), options);
}
