import { mkdir } from "node:fs/promises";
import { urlWithoutCredentials } from "@loclab/openai-http";
import {
  cellLabel,
  hasResult,
  type KeyHistory,
  readOwnJsonl,
  readRunManifest,
  RunSessionSchema,
  runLayout,
} from "@loclab/schemas";
import { mendRunFolder } from "./crash-mending.js";
import type { EndpointProbe } from "./endpoint-probe.js";
import { parseRunSpec } from "./load-run-spec.js";
import { localizerRunKind } from "./localizer-kind.js";
import { type OpenedPool, openEndpointPool } from "./open-endpoint-pool.js";
import { checkRunFolder, RunFolderError, recordSession, type SessionFacts, writeNewRun } from "./run-folder.js";
import type { RunEvent, RunSummary } from "./run-events.js";
import { environmentFacts } from "./run-identity.js";
import type { RunKind } from "./run-kind.js";
import type { EndpointPool } from "./endpoint-pool.js";
import { serverWindow } from "./context-window.js";
import type { EndpointSpec } from "./run-spec.js";
import type { MendedRun } from "./crash-mending.js";
import { acquireRunLock } from "./run-lock.js";
import { type PlannedAttempt, planRun, type RunPlan } from "./run-plan.js";
import type { RunSpec } from "./run-spec.js";
import { Scheduler } from "./scheduler.js";

export interface RunOptions {
  /** Told of everything the run does (progress displays, logs). */
  onEvent?: (event: RunEvent) => void;
  /** Aborting stops dispatching; attempts in flight finish and are recorded. */
  signal?: AbortSignal;
  /** For the lock file and the session line. */
  command?: string;
  /** What each attempt does; default the localizer (`localizerRunKind`), or `repairKind` for a `kind: repair` spec. */
  kind?: RunKind;
  /**
   * The repair run kind (`repairRunKind` of @loclab/repair, which the runner cannot depend on:
   * it builds on the fixer, the evaluation and FGL's renderer); a `kind: repair` spec needs it.
   */
  repairKind?: RunKind;
  /**
   * Endpoints that join the pool as they become ready (servers a cluster scheduler starts:
   * `launchSlurmServers` of @loclab/vllm). Each must serve the run's model. With these, the run
   * starts even when none of the spec's endpoints is ready: it waits, paused, up to
   * `retry.pauseSeconds`.
   */
  joiningEndpoints?: AsyncIterable<EndpointSpec>;
}

/**
 * Runs the keys of `spec` that are not done (docs/definitions.md §10; docs/architecture.md,
 * "The data flow of a run"), starting the run or continuing it when `spec.out` already holds
 * this same run:
 *
 * 1. plan (benchmark, instances, cells, keys; errors name the spec's field) and check the folder
 *    (`checkRunFolder`), take its lock, check every endpoint's readiness (none ready:
 *    `EndpointsNotReadyError`, nothing started), write `manifest.json` (first start) and a
 *    `sessions.jsonl` line;
 * 2. mend what a crash left (`mendRunFolder`);
 * 3. run the open keys over the pool (`Scheduler`), each by the run kind (the localizer).
 */
export async function startRun(spec: RunSpec, options: RunOptions = {}): Promise<RunSummary> {
  const session = await openRunSession(spec, options);
  try {
    const kind = await session.kind.openSession(session.plan, session.open);
    const scheduler = new Scheduler({
      plan: session.plan,
      pool: session.pool,
      kind,
      mended: session.mended,
      windows: session.windows,
      emit: session.emit,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return await scheduler.run();
  } finally {
    await session.close();
  }
}

/** A run folder opened for one session: planned, locked, its endpoints checked, mended. */
export interface RunSession {
  plan: RunPlan;
  /** The run kind that runs its attempts (the localizer, or the repair kind). */
  kind: RunKind;
  pool: EndpointPool;
  /** Per endpoint, its context window, when it says. */
  windows: readonly (number | undefined)[];
  mended: MendedRun;
  /** The keys with no final outcome yet, in plan order. */
  open: PlannedAttempt[];
  emit: (event: RunEvent) => void;
  /** Stops the pool's timers and releases the run's lock. */
  close(): Promise<void>;
}

/**
 * Steps 1 and 2 of `startRun`, shared by the local scheduler and the distributed coordinator
 * (@loclab/queue): both then run `open` their own way and commit with `commitAttemptRecord`.
 * Emits the `start` event.
 */
export async function openRunSession(spec: RunSpec, options: RunOptions = {}): Promise<RunSession> {
  const emit = options.onEvent ?? (() => undefined);
  const runKind = options.kind ?? (spec.kind === "repair" ? options.repairKind : localizerRunKind);
  if (!runKind)
    throw new RunFolderError(
      `${spec.out}: a repair run (kind: repair) needs the repair run kind: start it with loclab run, or startRepairRun of @loclab/repair`,
    );
  const plan = await planRun(spec);
  const dir = spec.out;
  const existing = await checkRunFolder(spec);
  await mkdir(dir, { recursive: true });
  const lock = await acquireRunLock(dir, options.command ?? `loclab run ${dir}`);
  if (lock.tookOver) emit({ type: "note", message: `${dir}: ${lock.tookOver}` });
  let opened: OpenedPool | undefined;
  try {
    opened = await openEndpointPool(spec.endpoints, {
      breakerFailures: spec.retry.breakerFailures,
      probeMs: spec.retry.probeSeconds * 1000,
      healthMs: spec.retry.healthSeconds * 1000,
      pauseMs: spec.retry.pauseSeconds * 1000,
      onEvent: emit,
      allowNoneReady: options.joiningEndpoints !== undefined,
    });
    const { pool, probes, windows } = opened;
    if (options.joiningEndpoints) void joinEndpoints(options.joiningEndpoints, spec, opened, emit);
    const facts = sessionFacts(spec, probes, options.command);
    if (!existing) await writeNewRun(plan, facts);
    await recordSession(plan, facts, existing !== undefined);
    const mended = await mendRunFolder(plan, emit);
    const open = plan.attempts.filter((attempt) => !mended.histories.get(attempt.key)?.final);
    emit({
      type: "start",
      dir,
      resumed: existing !== undefined,
      keys: plan.attempts.length,
      done: plan.attempts.length - open.length,
      cells: cellCounts(plan, mended.histories),
      endpoints: pool.snapshot(),
    });
    const pooled = pool;
    return {
      plan,
      kind: runKind,
      pool,
      windows,
      mended,
      open,
      emit,
      close: async () => {
        pooled.stop();
        await lock.release();
      },
    };
  } catch (error) {
    opened?.pool.stop();
    await lock.release();
    throw error;
  }
}

/**
 * Continues the run in `dir`: exactly the keys that have no final outcome yet, with the spec
 * of its last session (`sessions.jsonl`: the endpoints and budgets last given), or the
 * manifest's.
 */
export async function resumeRun(dir: string, options: RunOptions = {}): Promise<RunSummary> {
  return startRun(await lastSessionSpec(dir), options);
}

/** The spec a resumed run continues with: its last session's (`sessions.jsonl`), or the manifest's; `out` is `dir`. */
export async function lastSessionSpec(dir: string): Promise<RunSpec> {
  const manifest = await readRunManifest(dir);
  if (!manifest)
    throw new RunFolderError(`${dir}: no manifest.json: not a run folder (start one with loclab run SPEC)`);
  const sessions = await readOwnJsonl(runLayout.sessions(dir), RunSessionSchema, { repair: false });
  const last = sessions.records.at(-1)?.spec;
  const source = last ? runLayout.sessions(dir) : runLayout.manifest(dir);
  return parseRunSpec({ ...(last ?? manifest.spec), out: dir }, { source });
}

/**
 * Adds each joining endpoint to the pool as it comes (and its window to `windows`); one that
 * serves another model than the run's is refused with a note, as is a source that fails.
 */
async function joinEndpoints(
  source: AsyncIterable<EndpointSpec>,
  spec: RunSpec,
  opened: OpenedPool,
  emit: (event: RunEvent) => void,
): Promise<void> {
  const model = spec.endpoints[0]?.model;
  try {
    for await (const endpoint of source) {
      if (endpoint.model !== model) {
        emit({
          type: "note",
          message: `${urlWithoutCredentials(endpoint.baseURL)} serves ${endpoint.model}, not the run's model ${model}: not added`,
        });
        continue;
      }
      const { index, probe } = await opened.pool.add(endpoint);
      opened.windows[index] = serverWindow(probe.models, endpoint.model);
      emit({
        type: "note",
        message: `endpoint ${index} joined: ${urlWithoutCredentials(endpoint.baseURL)} (${probe.ok ? "ready" : `not ready yet: ${probe.problem}`})`,
      });
    }
  } catch (error) {
    emit({ type: "note", message: `joining endpoints: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/** The environment and each endpoint's answers, read once (it runs git): the manifest and the session line say the same. */
function sessionFacts(spec: RunSpec, probes: readonly EndpointProbe[], command: string | undefined): SessionFacts {
  return {
    startedAt: new Date().toISOString(),
    environment: environmentFacts(),
    command: command ?? null,
    endpoints: probes.map((probe, i) => ({
      baseURL: urlWithoutCredentials(spec.endpoints[i]?.baseURL ?? ""),
      model: spec.endpoints[i]?.model ?? "",
      ready: probe.ok,
      ...(probe.problem ? { problem: probe.problem } : {}),
      ...(probe.models !== undefined ? { models: probe.models } : {}),
      ...(probe.version !== undefined ? { version: probe.version } : {}),
    })),
  };
}

/** Per cell, its keys, those done and those with a prediction: for the start event. */
function cellCounts(plan: RunPlan, histories: ReadonlyMap<string, KeyHistory>) {
  return plan.cells.map(cellLabel).map((cell) => {
    const finals = plan.attempts
      .filter((attempt) => attempt.cellLabel === cell)
      .map((attempt) => histories.get(attempt.key)?.final);
    const done = finals.filter(Boolean).length;
    return { cell, keys: finals.length, done, predicted: finals.filter((final) => final && hasResult(final)).length };
  });
}
