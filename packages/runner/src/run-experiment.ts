import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { relative } from "node:path";
import {
  type Completion,
  type CompleteRequest,
  createModelClient,
  localizeInstance,
  type ModelClient,
  ModelTransportError,
  urlWithoutCredentials,
} from "@loclab/agent";
import {
  cellLabel,
  controlLabel,
  isFinalOutcome,
  type Prediction,
  PredictionRecordSchema,
  RUN_RECORD_KIND,
  type RunRecord,
  RunRecordSchema,
  SCHEMA_VERSION,
  stampRecord,
} from "@loclab/schemas";
import { canonicalJson } from "./attempt-key.js";
import { leakAudit } from "@loclab/controls";
import { goldAtBaseCommit } from "@loclab/checkouts";
import { contextLimitFor, serverWindow } from "./context-window.js";
import { defaultWorkspaceCacheDir } from "@loclab/tools";
import { CellWorkspaces } from "./cell-workspaces.js";
import { type EndpointLease, EndpointPool, PoolUnavailableError } from "./endpoint-pool.js";
import { JsonlAppender, keyHistories, type KeyHistory, readLedger, readOwnJsonl } from "./ledger.js";
import { parseRunSpec, RunSpecError } from "./load-run-spec.js";
import {
  environmentFacts,
  firstDifference,
  readRunManifest,
  RUN_MANIFEST_KIND,
  RUNNER_VERSION,
  type RunManifest,
  runIdentity,
  storedSpec,
  writeRunManifest,
} from "./run-manifest.js";
import type { RunEvent, RunStopReason, RunSummary } from "./run-events.js";
import { runLayout } from "./run-layout.js";
import { acquireRunLock } from "./run-lock.js";
import { type PlannedAttempt, planRun, type RunPlan } from "./run-plan.js";
import type { LocalizerSpec, RunSpec } from "./run-spec.js";
import { createHash } from "node:crypto";
import { z } from "zod";

export interface RunOptions {
  /** Told of everything the run does (progress displays, logs). */
  onEvent?: (event: RunEvent) => void;
  /** Aborting stops dispatching; attempts in flight finish and are recorded. */
  signal?: AbortSignal;
  /** For the lock file and the session line. */
  command?: string;
}

/** The run folder already holds another run, or something else that is not a run. */
export class RunFolderError extends Error {
  override readonly name = "RunFolderError";
}

/** Every endpoint failed its readiness check: nothing was started. */
export class EndpointsNotReadyError extends Error {
  override readonly name = "EndpointsNotReadyError";
}

/**
 * Starts a run (docs/definitions.md §10), or continues it when `spec.out` already holds this
 * same run (same resolved spec): see `executeRun`. A folder holding another run's manifest,
 * or the files of an older `loclab localize`, is refused before anything is written.
 */
export async function startRun(spec: RunSpec, options: RunOptions = {}): Promise<RunSummary> {
  return executeRun(spec, options);
}

/**
 * Continues the run in `dir`: exactly the keys that have no final outcome yet, with the spec
 * of its last session (`sessions.jsonl`: the endpoints and budgets last given), or the
 * manifest's.
 */
export async function resumeRun(dir: string, options: RunOptions = {}): Promise<RunSummary> {
  const manifest = await readRunManifest(dir);
  if (!manifest)
    throw new RunFolderError(`${dir}: no manifest.json: not a run folder (start one with loclab run SPEC)`);
  const sessions = await readOwnJsonl(
    runLayout.sessions(dir),
    z.looseObject({ spec: z.record(z.string(), z.unknown()) }),
    { repair: false },
  );
  const last = sessions.records.at(-1)?.spec;
  return executeRun(
    parseRunSpec(
      { ...(last ?? manifest.spec), out: dir },
      { source: last ? runLayout.sessions(dir) : runLayout.manifest(dir) },
    ),
    options,
  );
}

/**
 * Runs the keys of `spec` that are not done:
 *
 * 1. plan (benchmark, instances, cells, keys; errors name the spec's field), check the folder,
 *    take its lock, check every endpoint's readiness (none ready: `EndpointsNotReadyError`,
 *    nothing started), write `manifest.json` (first start) and a `sessions.jsonl` line;
 * 2. read the ledger (a torn last line set aside), mend a kill's leftovers: a final record whose
 *    prediction line is missing gets it appended; an attempt whose trajectory exists without a
 *    record (the runner died during it) gets a `failed` record saying so;
 * 3. dispatch the open keys (the set difference of planned and done keys, in plan order) to
 *    the pool, each attempt holding one endpoint slot for all its turns; each attempt's record
 *    is appended to the ledger when it ends, then its prediction to the cell's file;
 * 4. an `infra_error` (the endpoint failed in transport after the client's retries) sends the
 *    key back to the front of the queue, to another endpoint if one is free, up to
 *    `retry.attemptsPerKey` times in a session; model-caused outcomes are never retried;
 * 5. stop dispatching when the run's token budget (over the whole ledger) or wall budget (this
 *    session) is spent, on `signal`, or when every endpoint stayed down for `retry.pauseSeconds`;
 *    attempts in flight always finish and are recorded.
 */
export async function executeRun(spec: RunSpec, options: RunOptions = {}): Promise<RunSummary> {
  const emit = options.onEvent ?? (() => undefined);
  const plan = await planRun(spec);
  const dir = spec.out;
  const existing = await readRunManifest(dir);
  const stored = storedSpec(spec);
  if (existing) {
    const difference = firstDifference(runIdentity(existing.spec), runIdentity(stored));
    if (difference) {
      throw new RunFolderError(
        `${runLayout.manifest(dir)} holds another run (its spec differs at ${difference.replace("$.instanceBudgets", "$.budgets.instance").replace("$.model", "$.endpoints[0].model")}); choose another "out", or continue that run with loclab run --resume ${dir}`,
      );
    }
  } else {
    for (const old of ["predictions.jsonl", "runs.jsonl"]) {
      if (existsSync(`${dir}/${old}`))
        throw new RunFolderError(
          `${dir} holds ${old} from an older loclab localize and no manifest.json; choose another "out"`,
        );
    }
  }
  // The cache may hold every tree, but a spec that names a folder that is not there is not true.
  if (!existsSync(spec.repos))
    throw new RunSpecError(
      "$.repos",
      `${spec.repos} does not exist (the folder of git mirrors, one per repository: <owner>__<name>[.git])`,
    );
  await mkdir(dir, { recursive: true });
  const lock = await acquireRunLock(dir, options.command ?? `loclab run ${dir}`);
  if (lock.tookOver) emit({ type: "note", message: `${dir}: ${lock.tookOver}` });
  const pool = new EndpointPool(spec.endpoints, {
    breakerFailures: spec.retry.breakerFailures,
    probeMs: spec.retry.probeSeconds * 1000,
    healthMs: spec.retry.healthSeconds * 1000,
    pauseMs: spec.retry.pauseSeconds * 1000,
    onEvent: emit,
  });
  try {
    const probes = await pool.checkAll();
    if (!pool.anyUp) {
      throw new EndpointsNotReadyError(
        `no endpoint is ready, nothing was started: ${probes.map((probe, i) => `endpoints[${i}] ${urlWithoutCredentials(spec.endpoints[i]?.baseURL ?? "")}: ${probe.problem}`).join("; ")}`,
      );
    }
    pool.start();
    const startedAt = new Date().toISOString();
    // Read once (it runs git): the manifest and the session line say the same.
    const environment = environmentFacts();
    const endpointFacts = probes.map((probe, i) => ({
      baseURL: urlWithoutCredentials(spec.endpoints[i]?.baseURL ?? ""),
      model: spec.endpoints[i]?.model ?? "",
      ready: probe.ok,
      ...(probe.problem ? { problem: probe.problem } : {}),
      ...(probe.models !== undefined ? { models: probe.models } : {}),
      ...(probe.version !== undefined ? { version: probe.version } : {}),
    }));
    if (!existing) {
      const manifest: RunManifest = {
        kind: RUN_MANIFEST_KIND,
        schemaVersion: SCHEMA_VERSION,
        spec: stored,
        specDigest: createHash("sha256").update(canonicalJson(stored)).digest("hex"),
        benchmark: plan.benchmarkName,
        instances: plan.instances.map((instance) => instance.instance_id),
        cells: plan.cells.map(cellLabel),
        attemptKeys: plan.attempts.length,
        ...environment,
        endpoints: endpointFacts,
        startedAt,
      };
      await writeRunManifest(dir, manifest);
      for (const [seed, pairs] of plan.pairings) {
        await mkdir(`${dir}/controls`, { recursive: true });
        await writeFile(runLayout.pairing(dir, seed), `${JSON.stringify({ seed, pairs }, null, 2)}\n`, "utf8");
      }
    }
    // Each session's own spec: endpoints, retries and the run's budget may differ from the first.
    await new JsonlAppender(runLayout.sessions(dir)).append({
      startedAt,
      pid: process.pid,
      host: hostname(),
      resumed: existing !== undefined,
      command: options.command ?? null,
      spec: stored,
      endpoints: endpointFacts,
      ...environment,
    });
    // Each endpoint's window (`max_model_len` of /v1/models), for the default context limit.
    const windows = probes.map((probe, i) => serverWindow(probe.models, spec.endpoints[i]?.model ?? ""));
    return await dispatchRun(plan, pool, {
      emit,
      resumed: existing !== undefined,
      windows,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } finally {
    pool.stop();
    await lock.release();
  }
}

interface QueueItem {
  attempt: PlannedAttempt;
  /** The endpoint that last dropped it, passed over when another is free. */
  avoid?: number;
}

async function dispatchRun(
  plan: RunPlan,
  pool: EndpointPool,
  context: {
    emit: (event: RunEvent) => void;
    resumed: boolean;
    windows: readonly (number | undefined)[];
    signal?: AbortSignal;
  },
): Promise<RunSummary> {
  const { spec } = plan;
  const { emit } = context;
  const dir = spec.out;
  const ledgerPath = runLayout.ledger(dir);
  const ledgerRead = await readLedger(ledgerPath, { repair: true });
  if (ledgerRead.torn)
    emit({
      type: "note",
      message: `${ledgerPath}:${ledgerRead.torn.line}: a torn last line (${ledgerRead.torn.bytes} bytes, from a crash) was set aside in ${ledgerRead.torn.savedTo}`,
    });
  for (const bad of ledgerRead.skipped)
    emit({ type: "note", message: `${bad.message}; skipped (its attempt runs again)` });
  const ledger = new JsonlAppender(ledgerPath);
  const histories = keyHistories(ledgerRead.records);
  const predictionFiles = new Map<string, JsonlAppender>();
  const predictionsOf = (cell: string) => {
    let appender = predictionFiles.get(cell);
    if (!appender) predictionFiles.set(cell, (appender = new JsonlAppender(runLayout.predictions(dir, cell))));
    return appender;
  };

  // Mend what a kill left: predictions missing behind their ledger line; attempts without a record.
  const byCell = new Map<string, PlannedAttempt[]>();
  for (const attempt of plan.attempts) {
    const attempts = byCell.get(attempt.cellLabel);
    if (attempts) attempts.push(attempt);
    else byCell.set(attempt.cellLabel, [attempt]);
  }
  for (const [cell, attempts] of byCell) {
    const file = runLayout.predictions(dir, cell);
    const read = await readOwnJsonl(file, PredictionRecordSchema, { repair: true });
    if (read.torn)
      emit({
        type: "note",
        message: `${file}:${read.torn.line}: a torn last line was set aside in ${read.torn.savedTo}`,
      });
    const present = new Set(read.records.map((record) => record.instanceId));
    for (const attempt of attempts) {
      const prediction = histories.get(attempt.key)?.final?.prediction;
      if (prediction && !present.has(attempt.instance.instance_id)) {
        await predictionsOf(cell).append(stampRecord(prediction));
        emit({
          type: "note",
          message: `${cell} ${attempt.instance.instance_id}: its prediction was recorded in the ledger but missing from ${file} (a kill between the two writes); appended`,
        });
      }
    }
  }
  const nextAttempt = new Map<string, number>();
  for (const attempt of plan.attempts) {
    const history = histories.get(attempt.key);
    let last = Math.max(0, ...(history?.records.map((record) => record.attempt) ?? []));
    if (!history?.final) {
      const trajectoryDir = runLayout.trajectoryDir(dir, attempt.cellLabel, attempt.instance.instance_id);
      const files = existsSync(trajectoryDir) ? await readdir(trajectoryDir) : [];
      for (const name of files) {
        const n = Number(/^attempt-(\d+)\.traj\.jsonl$/.exec(name)?.[1] ?? 0);
        if (n > last) {
          const record = baseRecord(attempt, n, null, new Date().toISOString());
          const interrupted: RunRecord = {
            ...record,
            outcome: "failed",
            trajectory: relative(dir, runLayout.trajectory(dir, attempt.cellLabel, attempt.instance.instance_id, n)),
            error: "interrupted: the runner stopped during this attempt (a crash or a kill); it runs again",
          };
          await ledger.append(RunRecordSchema.parse(interrupted));
          addRecord(histories, interrupted);
          last = n;
        }
      }
    }
    nextAttempt.set(attempt.key, last);
  }

  const cells = plan.cells.map(cellLabel);
  const doneKeys = () => plan.attempts.filter((attempt) => histories.get(attempt.key)?.final).length;
  const cellCounts = cells.map((cell) => {
    const finals = (byCell.get(cell) ?? []).map((attempt) => histories.get(attempt.key)?.final);
    return {
      cell,
      keys: finals.length,
      done: finals.filter(Boolean).length,
      predicted: finals.filter((final) => final?.prediction).length,
    };
  });
  emit({
    type: "start",
    dir,
    resumed: context.resumed,
    keys: plan.attempts.length,
    done: doneKeys(),
    cells: cellCounts,
    endpoints: pool.snapshot(),
  });

  const queue: QueueItem[] = plan.attempts
    .filter((attempt) => !histories.get(attempt.key)?.final)
    .map((attempt) => ({ attempt }));
  const goldTerms = await leakAuditGold(plan, queue);
  const workspaces = new CellWorkspaces({ mirrors: spec.repos, cacheDir: spec.cacheDir ?? defaultWorkspaceCacheDir() });
  const sessionStarted = Date.now();
  let tokensSpent = ledgerRead.records.reduce((sum, record) => sum + (record.usage.totalTokens ?? 0), 0);
  const triesThisSession = new Map<string, number>();
  let attemptsThisSession = 0;
  let failuresThisSession = 0;
  let retriesThisSession = 0;
  let stoppedBy: RunStopReason | undefined;
  const stop = (reason: RunStopReason, detail: string) => {
    if (stoppedBy) return;
    stoppedBy = reason;
    emit({ type: "stopping", reason, detail });
  };
  const budgetSpent = (): boolean => {
    if (
      spec.budgets.run.wallSeconds !== undefined &&
      Date.now() - sessionStarted >= spec.budgets.run.wallSeconds * 1000
    )
      stop("run-wall-budget", `the run's wall budget of ${spec.budgets.run.wallSeconds} s is spent`);
    if (spec.budgets.run.tokens !== undefined && tokensSpent >= spec.budgets.run.tokens)
      stop("run-token-budget", `the run's token budget of ${spec.budgets.run.tokens} is spent (${tokensSpent} tokens)`);
    if (context.signal?.aborted)
      stop("interrupted", "interrupted: attempts in flight finish and are recorded; resume with loclab run --resume");
    return stoppedBy !== undefined;
  };

  const runOne = async (item: QueueItem, lease: EndpointLease): Promise<void> => {
    const { attempt } = item;
    const n = (nextAttempt.get(attempt.key) ?? 0) + 1;
    nextAttempt.set(attempt.key, n);
    attemptsThisSession += 1;
    triesThisSession.set(attempt.key, (triesThisSession.get(attempt.key) ?? 0) + 1);
    emit({
      type: "attempt-start",
      key: attempt.key,
      cell: attempt.cellLabel,
      instanceId: attempt.instance.instance_id,
      attempt: n,
      endpoint: lease.index,
    });
    const record = await runAttempt(
      plan,
      attempt,
      n,
      lease,
      pool,
      workspaces,
      context.windows[lease.index],
      goldTerms.get(attempt.instance.instance_id) ?? { files: [], symbols: [] },
      (retry) => {
        retriesThisSession += 1;
        emit({
          type: "retry",
          cell: attempt.cellLabel,
          instanceId: attempt.instance.instance_id,
          endpoint: lease.index,
          retry,
        });
      },
    );
    tokensSpent += record.usage.totalTokens ?? 0;
    await ledger.append(RunRecordSchema.parse(record));
    addRecord(histories, record);
    if (record.prediction) await predictionsOf(attempt.cellLabel).append(stampRecord(record.prediction));
    let requeued = false;
    if (!isFinalOutcome(record.outcome)) {
      failuresThisSession += 1;
      if (record.outcome === "infra_error" && (triesThisSession.get(attempt.key) ?? 0) < spec.retry.attemptsPerKey) {
        queue.unshift({ attempt, avoid: lease.index });
        requeued = true;
      }
    }
    emit({ type: "attempt-end", cell: attempt.cellLabel, record, endpoint: lease.index, requeued });
  };

  const inFlight = new Set<Promise<void>>();
  const stopped = new Promise<"stopped">((resolve) => {
    if (context.signal?.aborted) resolve("stopped");
    context.signal?.addEventListener("abort", () => resolve("stopped"), { once: true });
  });
  while (!budgetSpent()) {
    const item = queue[0];
    if (!item) {
      if (inFlight.size === 0) break;
      await Promise.race([...inFlight, stopped]);
      continue;
    }
    const acquiring = pool.acquire(item.avoid !== undefined ? { avoid: item.avoid } : {});
    // A key requeued while we waited goes first: re-read the queue once a slot is ours.
    const waited = await Promise.race([
      acquiring.then((lease) => ({ lease })),
      stopped,
      ...[...inFlight].map((p) => p.then(() => "changed" as const)),
    ]).catch((error: unknown) => {
      if (error instanceof PoolUnavailableError) return { unavailable: error.message };
      throw error;
    });
    if (waited === "stopped" || waited === "changed") {
      void acquiring.then(
        (lease) => lease.release(),
        () => undefined,
      );
      continue;
    }
    if ("unavailable" in waited) {
      stop("endpoints-down", `${waited.unavailable}; resume with loclab run --resume ${dir} once they are back`);
      break;
    }
    const { lease } = waited;
    if (budgetSpent()) {
      lease.release();
      break;
    }
    const next = queue.shift() as QueueItem;
    const running: Promise<void> = runOne(next, lease).finally(() => {
      lease.release();
      inFlight.delete(running);
    });
    inFlight.add(running);
  }
  await Promise.allSettled([...inFlight]);
  const summary = summarize(plan, histories, {
    attemptsThisSession,
    failuresThisSession,
    retriesThisSession,
    ...(stoppedBy ? { stoppedBy } : {}),
  });
  emit({ type: "end", summary });
  return summary;
}

function addRecord(histories: Map<string, KeyHistory>, record: RunRecord): void {
  const merged = keyHistories([...(histories.get(record.key)?.records ?? []), record]).get(record.key);
  if (merged) histories.set(record.key, merged);
}

function baseRecord(attempt: PlannedAttempt, n: number, endpoint: RunRecord["endpoint"], startedAt: string): RunRecord {
  return {
    kind: RUN_RECORD_KIND,
    schemaVersion: SCHEMA_VERSION,
    key: attempt.key,
    instanceId: attempt.instance.instance_id,
    attempt: n,
    seed: attempt.cell.seed,
    control: attempt.cell.control,
    endpoint,
    outcome: "failed",
    exit: null,
    turns: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    wallMs: 0,
    modelMs: 0,
    retries: [],
    trajectory: null,
    startedAt,
    endedAt: new Date().toISOString(),
  };
}

/** One attempt at one key on one endpoint; never throws: a harness failure becomes a `failed` record. */
async function runAttempt(
  plan: RunPlan,
  attempt: PlannedAttempt,
  n: number,
  lease: EndpointLease,
  pool: EndpointPool,
  workspaces: CellWorkspaces,
  window: number | undefined,
  gold: GoldTerms,
  onRetry: (retry: import("@loclab/agent").RetryRecord) => void,
): Promise<RunRecord> {
  const { spec } = plan;
  const { localizer } = spec;
  const endpoint = { baseURL: urlWithoutCredentials(lease.endpoint.baseURL), model: lease.endpoint.model };
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const trajectoryPath = runLayout.trajectory(spec.out, attempt.cellLabel, attempt.instance.instance_id, n);
  const base = baseRecord(attempt, n, endpoint, startedAt);
  try {
    await mkdir(runLayout.trajectoryDir(spec.out, attempt.cellLabel, attempt.instance.instance_id), {
      recursive: true,
    });
    const prepared = await workspaces.prepare(attempt);
    const inner = createModelClient({
      baseURL: lease.endpoint.baseURL,
      model: lease.endpoint.model,
      ...(lease.endpoint.apiKeyEnv ? { apiKeyEnv: lease.endpoint.apiKeyEnv } : {}),
      ...(attempt.cell.seed !== null ? { seed: attempt.cell.seed } : {}),
      ...samplingOf(localizer),
      ...(localizer.maxOutputTokens !== undefined ? { maxOutputTokens: localizer.maxOutputTokens } : {}),
      requestTimeoutMs: localizer.requestTimeoutSeconds * 1000,
      callDeadlineMs: localizer.callDeadlineSeconds * 1000,
      maxRetries: spec.retry.requestRetries,
      backoffMs: spec.retry.backoffSeconds * 1000,
      onProgress: (event) => {
        if (event.kind !== "retrying") return;
        pool.noteFault(lease.index, event.retry.error);
        onRetry(event.retry);
      },
    });
    // The pool hears of every answer and every final transport failure (its circuit breaker).
    const client: ModelClient = {
      model: inner.model,
      baseURL: inner.baseURL,
      complete: async (request: CompleteRequest): Promise<Completion> => {
        try {
          const completion = await inner.complete(request);
          pool.noteSuccess(lease.index);
          return completion;
        } catch (error) {
          if (error instanceof ModelTransportError) pool.noteFault(lease.index, error.errorClass);
          throw error;
        }
      },
    };
    const contextLimitTokens = contextLimitFor({
      spec: localizer.contextLimitTokens,
      window,
      maxOutputTokens: localizer.maxOutputTokens,
    });
    const result = await localizeInstance({
      instance: { instance_id: attempt.instance.instance_id, problem_statement: prepared.problemStatement },
      // Opaque: the key's first digits name neither the repository nor the issue, and differ per cell.
      taskLabel: `task-${attempt.key.slice(0, 8)}`,
      workspace: prepared.workspace,
      client,
      maxTurns: localizer.maxTurns,
      maxLocations: localizer.maxLocations,
      toolMode: localizer.toolMode,
      ...(localizer.profile ? { profile: localizer.profile } : {}),
      ...(localizer.profile === "sherloc" && prepared.originalPathOf
        ? { sherlocTools: { originalPathOf: prepared.originalPathOf } }
        : {}),
      ...(contextLimitTokens !== undefined ? { contextLimitTokens } : {}),
      ...(spec.budgets.instance.tokens !== undefined ? { maxTotalTokens: spec.budgets.instance.tokens } : {}),
      ...(spec.budgets.instance.wallSeconds !== undefined
        ? { maxWallMs: spec.budgets.instance.wallSeconds * 1000 }
        : {}),
      prompts: plan.prompts,
      trajectoryPath,
      provenance: {
        tool: "loclab",
        toolVersion: RUNNER_VERSION,
        createdAt: startedAt,
        // The run, cell and attempt; never the control's mapping or pairing (they stay outside trajectories).
        inputs: {
          run: spec.name ?? null,
          benchmark: plan.benchmarkName,
          key: attempt.key,
          attempt: n,
          seed: attempt.cell.seed,
          control: controlLabel(attempt.cell.control),
          endpoint,
          localizer: plan.config,
        },
      },
    });
    let prediction: Prediction | undefined;
    if (result.prediction) {
      prediction = {
        ...prepared.toOriginal(result.prediction).prediction,
        seed: attempt.cell.seed,
        control: attempt.cell.control,
      };
    }
    const outcome =
      result.outcome === "model_error" && result.errorKind === "transport" ? "infra_error" : result.outcome;
    const leaks = leakAudit({
      text: result.initialMessages.map((message) => message.content ?? "").join("\n"),
      instanceId: attempt.instance.instance_id,
      repo: attempt.instance.repo,
      packages: prepared.packages,
      goldFiles: gold.files,
      goldSymbols: gold.symbols,
    });
    return {
      ...base,
      outcome,
      exit: result.exit,
      turns: result.turns,
      usage: result.usage,
      wallMs: performance.now() - started,
      modelMs: result.modelMs,
      retries: result.retries.map(({ attempt: a, error, message, waitedMs }) => ({
        attempt: a,
        error,
        message,
        waitedMs,
      })),
      trajectory: relative(spec.out, trajectoryPath),
      ...(prediction ? { prediction } : {}),
      ...(result.error ? { error: result.error } : {}),
      leaks,
      ...(contextLimitTokens !== undefined ? { contextLimitTokens } : {}),
      endedAt: new Date().toISOString(),
    };
  } catch (error) {
    return {
      ...base,
      wallMs: performance.now() - started,
      trajectory: existsSync(trajectoryPath) ? relative(spec.out, trajectoryPath) : null,
      error: error instanceof Error ? error.message : String(error),
      endedAt: new Date().toISOString(),
    };
  }
}

/** What the leak audit looks for of an instance's gold. */
interface GoldTerms {
  files: string[];
  symbols: string[];
}

/**
 * The gold files and symbol names of the instances still to run, for the leak audit: exact
 * symbols from the pre-images at base commit (read from the mirrors once, at the start), the
 * patch's hunk-header names besides; an instance whose patch does not parse has none.
 */
async function leakAuditGold(plan: RunPlan, queue: readonly QueueItem[]): Promise<Map<string, GoldTerms>> {
  const instances = [...new Map(queue.map(({ attempt }) => [attempt.instance.instance_id, attempt.instance])).values()];
  const terms = new Map<string, GoldTerms>();
  if (instances.length === 0) return terms;
  const { golds } = await goldAtBaseCommit({ instances, mirrors: plan.spec.repos });
  golds.forEach((gold) => {
    const names = [
      ...(gold.exact?.symbols ?? []).map((symbol) => symbol.name),
      ...gold.symbols.map((symbol) => symbol.name),
    ];
    terms.set(gold.instanceId, { files: gold.files, symbols: [...new Set(names)] });
  });
  return terms;
}

/** The summary over the plan's keys from the ledger's histories. Pure. */
export function summarize(
  plan: Pick<RunPlan, "attempts" | "spec">,
  histories: ReadonlyMap<string, KeyHistory>,
  session: Pick<RunSummary, "attemptsThisSession" | "failuresThisSession" | "retriesThisSession" | "stoppedBy">,
): RunSummary {
  const outcomes: RunSummary["outcomes"] = {};
  const noPrediction: Record<string, number> = {};
  let done = 0;
  let predicted = 0;
  for (const attempt of plan.attempts) {
    const history = histories.get(attempt.key);
    const final = history?.final;
    if (final) {
      done += 1;
      outcomes[final.outcome] = (outcomes[final.outcome] ?? 0) + 1;
      if (final.prediction) predicted += 1;
      else noPrediction[final.outcome] = (noPrediction[final.outcome] ?? 0) + 1;
      continue;
    }
    const last = history?.records.at(-1);
    const reason = last ? `open after ${last.outcome}` : "not started";
    noPrediction[reason] = (noPrediction[reason] ?? 0) + 1;
  }
  return {
    dir: plan.spec.out,
    keys: plan.attempts.length,
    done,
    predicted,
    outcomes,
    noPrediction,
    ...session,
    complete: done === plan.attempts.length,
  };
}

/** SHERLOC's sampling defaults (temperature 0.99, top_p 0.95) apply to its profile when the spec sets none. */
function samplingOf(localizer: LocalizerSpec): { temperature?: number; topP?: number } {
  const sherloc = localizer.profile === "sherloc";
  const temperature = localizer.temperature ?? (sherloc ? SHERLOC_SAMPLING.temperature : undefined);
  const topP = localizer.topP ?? (sherloc ? SHERLOC_SAMPLING.topP : undefined);
  return { ...(temperature !== undefined ? { temperature } : {}), ...(topP !== undefined ? { topP } : {}) };
}

/** SHERLOC's inference defaults (`SherlocGenerationConfig.inference`). */
export const SHERLOC_SAMPLING = { temperature: 0.99, topP: 0.95 } as const;
