import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import {
  localizerRunKind,
  openEndpointPool,
  type OpenedPool,
  type PlannedAttempt,
  parseRunSpec,
  planRun,
  type RunKind,
  type RunKindSession,
  type RunPlan,
} from "@loclab/runner";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { AttemptJobSchema, type ExecutionResult, QueuedRunSchema } from "./attempt-job.js";
import { attemptFiles, carryFiles, clearAttemptFiles, newSharedFiles } from "./carried-files.js";
import { EndpointSlots } from "./endpoint-slots.js";
import { acquireGated } from "./gated-lease.js";
import { SharedStages } from "./shared-stages.js";
import { DEFAULT_QUEUE_NAME, runKeys } from "./queue-keys.js";
import { connectRedis } from "./redis-connection.js";

/** Where this machine's copies of the run's inputs are, when they differ from the coordinator's. */
export interface WorkerOverrides {
  /** The folder of git mirrors. */
  repos?: string;
  /** The shared data folder (bundled benchmarks). */
  dataDir?: string;
  /** The workspace cache. */
  cacheDir?: string;
  /** A JSONL benchmark file (when the spec names a file). */
  benchmark?: string;
}

export interface WorkerOptions {
  /** `redis://HOST:PORT`; the password from LOCLAB_REDIS_PASSWORD. */
  queue: string;
  queueName?: string;
  /** Attempts this worker runs at once (each also needs a free slot on an endpoint, run-wide). Default 1. */
  concurrency?: number;
  /** This worker's own run folders (one per run, attempts' files before they are sent); default ~/.cache/loclab/worker. */
  workDir?: string;
  overrides?: WorkerOverrides;
  /** A repair run's kind (`repairRunKind` of @loclab/repair); without it, repair jobs fail here. */
  repairKind?: RunKind;
  /**
   * How long a job's lock lasts without renewal (BullMQ renews it every half): a worker whose
   * event loop is blocked longer than this loses the job to another (a duplicate execution).
   * Default 120 s, longer than any blocking step of an attempt (a git checkout, a container's
   * start); the attempt's own deadlines (budgets.instance.wallSeconds) are separate.
   */
  lockMs?: number;
  /** How often stalled jobs are looked for. Default 30 s. */
  stalledIntervalMs?: number;
  /** Times a job may stall (its worker killed) and still be run again. Default 5. */
  maxStalledCount?: number;
  /** Slots of a killed worker free themselves after this long. Default `lockMs`: when its jobs' locks lapse too. */
  slotTtlMs?: number;
  onEvent?: (event: WorkerEvent) => void;
  /** Aborting closes the worker: it takes no new job and waits for those in flight. */
  signal?: AbortSignal;
}

export type WorkerEvent =
  | { type: "ready"; worker: string; queueName: string; concurrency: number }
  | { type: "job-start"; runId: string; key: string; attempt: number; instanceId: string; cell: string }
  | {
      type: "job-end";
      runId: string;
      key: string;
      attempt: number;
      outcome: string;
      willRetry: boolean;
      seconds: number;
    }
  | { type: "job-failed"; jobId: string; error: string }
  | { type: "redis"; state: "down" | "up"; detail: string }
  | { type: "note"; message: string };

export interface WorkerSummary {
  worker: string;
  executions: number;
  byOutcome: Record<string, number>;
}

const DEFAULT_LOCK_MS = 120_000;

interface RunContext {
  plan: RunPlan;
  byKey: Map<string, PlannedAttempt>;
  session: RunKindSession;
  opened: OpenedPool;
  slots: EndpointSlots;
  stages: SharedStages;
  out: string;
  shipped: Set<string>;
}

/**
 * A worker of distributed runs (docs/guide/distributed-runs.md): takes attempt jobs from the
 * queue, runs each through the run kind of its run (the localizer, or the repair kind) exactly
 * as the local scheduler does, on a lease of its own endpoint pool gated by the run-wide slots
 * (`EndpointSlots`), in a run folder of its own; then adds the record and the files the attempt
 * wrote to the run's results stream, which the coordinator commits once. An `infra_error` with
 * tries left is thrown back to BullMQ, which runs the job again after a backoff (another record,
 * the next attempt number); a model-caused outcome is a finished job. Resolves when `signal`
 * aborts, after the jobs in flight end.
 */
export async function runWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const workerId = `${hostname()}-${process.pid}`;
  const emit = options.onEvent ?? (() => undefined);
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const concurrency = options.concurrency ?? 1;
  const workDir = join(options.workDir ?? join(homedir(), ".cache", "loclab", "worker"), workerId);
  const redis = connectRedis(options.queue, (state, detail) => emit({ type: "redis", state, detail }));
  const contexts = new Map<string, Promise<RunContext>>();
  const summary: WorkerSummary = { worker: workerId, executions: 0, byOutcome: {} };

  const contextFor = (runId: string): Promise<RunContext> => {
    let context = contexts.get(runId);
    if (!context) {
      context = openContext(redis, runId, join(workDir, runId), workerId, options);
      contexts.set(runId, context);
      // A context that failed to open (a missing mirror) is tried again by the next job.
      context.catch(() => contexts.delete(runId));
    }
    return context;
  };

  const processJob = async (job: Job): Promise<{ outcome: string }> => {
    const data = AttemptJobSchema.parse(job.data);
    const context = await contextFor(data.runId);
    const attempt = context.byKey.get(data.key);
    if (!attempt)
      throw new UnrecoverableError(
        `key ${data.key} is not in this worker's plan of run ${data.runId}: its benchmark, instances or mirrors differ from the coordinator's (see --repos, --data-dir, --benchmark)`,
      );
    const n = data.firstAttempt + job.attemptsMade;
    const instanceId = attempt.instance.instance_id;
    const startedAt = Date.now();
    emit({ type: "job-start", runId: data.runId, key: data.key, attempt: n, instanceId, cell: attempt.cellLabel });
    await clearAttemptFiles(context.out, attempt.cellLabel, instanceId, n);
    // A hand-off arm's localizer stage: placed from another worker's run, or run here under its lock.
    const stage = await context.stages.prepare(context.plan, attempt, options.signal);
    // Placed from Redis: the coordinator has it from the worker that ran it, so it is not sent again.
    if (stage.kind === "placed") for (const path of stage.paths) context.shipped.add(path);
    // The workspace (and a repair attempt's image) before the slot: no slot waits for a checkout.
    // A failure here is met again, and recorded, by the attempt itself.
    await context.session.prepare?.(attempt).catch(() => undefined);
    const gated = await acquireGated(context.opened.pool, context.slots, workerId, options.signal).catch(
      async (error: unknown) => {
        if (stage.kind === "locked") await stage.release();
        throw error;
      },
    );
    let record: ExecutionResult["record"];
    try {
      record = await context.session.runAttempt({
        attempt,
        n,
        lease: gated.lease,
        pool: context.opened.pool,
        window: context.opened.windows[gated.lease.index],
        releaseSlot: () => void gated.release().catch(() => undefined),
        onRetry: () => undefined,
      });
    } finally {
      await gated.release();
      if (stage.kind === "locked") await stage.release();
    }
    const paths = [
      ...(await attemptFiles(context.out, attempt.cellLabel, instanceId, n)),
      ...(await newSharedFiles(context.out, context.shipped)),
    ];
    const willRetry = record.outcome === "infra_error" && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
    const result: ExecutionResult = {
      key: data.key,
      attempt: n,
      execution: randomUUID(),
      worker: workerId,
      enqueuedAt: job.timestamp,
      startedAt,
      finishedAt: Date.now(),
      endpoint: gated.lease.index,
      willRetry,
      record,
      files: await carryFiles(context.out, paths),
    };
    // Reported before BullMQ hears the job is done: a worker killed between the two leaves a
    // job that stalls and runs again, and the coordinator counts that second execution as a duplicate.
    await redis.xadd(runKeys(data.runId).results, "*", "result", JSON.stringify(result));
    summary.executions += 1;
    summary.byOutcome[record.outcome] = (summary.byOutcome[record.outcome] ?? 0) + 1;
    emit({
      type: "job-end",
      runId: data.runId,
      key: data.key,
      attempt: n,
      outcome: record.outcome,
      willRetry,
      seconds: (Date.now() - startedAt) / 1000,
    });
    if (willRetry) throw new Error(`infra_error on attempt ${n}: ${record.error ?? "the endpoint failed"}`);
    return { outcome: record.outcome };
  };

  // BullMQ leaves a connection it was given open on close: this one is closed below.
  const connection = connectRedis(options.queue);
  const worker = new Worker(queueName, processJob, {
    connection,
    concurrency,
    lockDuration: options.lockMs ?? DEFAULT_LOCK_MS,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 5,
    autorun: false,
  });
  worker.on("failed", (job, error) => emit({ type: "job-failed", jobId: job?.id ?? "?", error: error.message }));
  worker.on("error", (error) => emit({ type: "note", message: `worker: ${error.message}` }));
  await mkdir(workDir, { recursive: true });
  const running = worker.run();
  await worker.waitUntilReady();
  emit({ type: "ready", worker: workerId, queueName, concurrency });
  await new Promise<void>((resolve) => {
    if (options.signal?.aborted) resolve();
    options.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  await worker.close();
  await running;
  for (const context of contexts.values()) await context.then((c) => c.opened.pool.stop()).catch(() => undefined);
  await redis.quit().catch(() => undefined);
  await connection.quit().catch(() => undefined);
  return summary;
}

/** A run as this worker runs it: its spec (from Redis, this machine's paths), plan, kind session and pool. */
async function openContext(
  redis: Redis,
  runId: string,
  out: string,
  workerId: string,
  options: WorkerOptions,
): Promise<RunContext> {
  const text = await redis.get(runKeys(runId).spec);
  if (text === null)
    throw new UnrecoverableError(
      `run ${runId} has no spec on this Redis (was it enqueued by loclab run --queue here?)`,
    );
  const queued = QueuedRunSchema.parse(JSON.parse(text));
  const overrides = options.overrides ?? {};
  const spec = parseRunSpec(
    {
      ...queued.spec,
      out,
      ...(overrides.repos ? { repos: overrides.repos } : {}),
      ...(overrides.dataDir ? { dataDir: overrides.dataDir } : {}),
      ...(overrides.cacheDir ? { cacheDir: overrides.cacheDir } : {}),
      ...(overrides.benchmark ? { benchmark: overrides.benchmark } : {}),
    },
    { source: `run ${runId} (from Redis)` },
  );
  const kind = queued.kind === "repair" ? options.repairKind : localizerRunKind;
  if (!kind)
    throw new UnrecoverableError(`run ${runId} is a repair run: this worker was started without the repair kind`);
  await mkdir(out, { recursive: true });
  const plan = await planRun(spec);
  const opened = await openEndpointPool(spec.endpoints, {
    breakerFailures: spec.retry.breakerFailures,
    probeMs: spec.retry.probeSeconds * 1000,
    healthMs: spec.retry.healthSeconds * 1000,
    pauseMs: spec.retry.pauseSeconds * 1000,
  });
  const session = await kind.openSession(plan, plan.attempts);
  const slots = new EndpointSlots({
    redis,
    keyOf: runKeys(runId).slots,
    limits: spec.endpoints.map((endpoint) => endpoint.maxConcurrency),
    ttlMs: options.slotTtlMs ?? options.lockMs ?? DEFAULT_LOCK_MS,
  });
  const stages = new SharedStages({
    redis,
    sharedKey: runKeys(runId).shared,
    lockKey: runKeys(runId).stageLock,
    out,
    lockMs: options.lockMs ?? DEFAULT_LOCK_MS,
    holder: workerId,
  });
  return {
    plan,
    byKey: new Map(plan.attempts.map((attempt) => [attempt.key, attempt])),
    session,
    opened,
    slots,
    stages,
    out,
    shipped: new Set(),
  };
}
