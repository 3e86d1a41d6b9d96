import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { relative } from "node:path";
import { type LocalizeInstanceOptions, type LocalizeResult, localizeInstance, type ModelClient } from "@loclab/agent";
import { urlWithoutCredentials } from "@loclab/openai-http";
import { goldAtBaseCommit } from "@loclab/checkouts";
import { leakAudit } from "@loclab/controls";
import { controlLabel, type Prediction, type RunRecord, runLayout } from "@loclab/schemas";
import { defaultWorkspaceCacheDir } from "@loclab/tools";
import { baseRecord } from "./attempt-record.js";
import { pooledClient } from "./pooled-client.js";
import { CellWorkspaces, type PreparedAttempt } from "./cell-workspaces.js";
import { contextLimitFor } from "./context-window.js";
import { RUNNER_VERSION } from "./run-identity.js";
import type { AttemptRequest, RunKind, RunKindSession } from "./run-kind.js";
import type { PlannedAttempt, RunPlan } from "./run-plan.js";
import type { LocalizerSpec } from "./run-spec.js";

/** What the leak audit looks for of an instance's gold. */
interface GoldTerms {
  files: string[];
  symbols: string[];
}

/** The localizer as a run kind: each attempt is one `localizeInstance` over the cell's workspace. */
export const localizerRunKind: RunKind = {
  name: "localization",
  async openSession(plan, open): Promise<RunKindSession> {
    const gold = await leakAuditGold(plan, open);
    const workspaces = new CellWorkspaces({
      mirrors: plan.spec.repos,
      cacheDir: plan.spec.cacheDir ?? defaultWorkspaceCacheDir(),
    });
    const none: GoldTerms = { files: [], symbols: [] };
    return {
      runAttempt: (request) =>
        runLocalizerAttempt(plan, request, workspaces, gold.get(request.attempt.instance.instance_id) ?? none),
      // The cell's workspace (checkout, mask, shuffled copy) before the attempt holds a slot.
      prepare: async (attempt) => {
        await workspaces.prepare(attempt);
      },
    };
  },
};

/**
 * The gold files and symbol names of the instances still to run, for the leak audit: exact
 * symbols from the pre-images at base commit (read from the mirrors once, at the start), the
 * patch's hunk-header names besides; an instance whose patch does not parse has none.
 */
async function leakAuditGold(plan: RunPlan, open: readonly PlannedAttempt[]): Promise<Map<string, GoldTerms>> {
  const instances = [...new Map(open.map((attempt) => [attempt.instance.instance_id, attempt.instance])).values()];
  const terms = new Map<string, GoldTerms>();
  if (instances.length === 0) return terms;
  const { golds } = await goldAtBaseCommit({ instances, mirrors: plan.spec.repos });
  for (const gold of golds) {
    const names = [
      ...(gold.exact?.symbols ?? []).map((symbol) => symbol.name),
      ...gold.symbols.map((symbol) => symbol.name),
    ];
    terms.set(gold.instanceId, { files: gold.files, symbols: [...new Set(names)] });
  }
  return terms;
}

/** One attempt at one key on one endpoint; never throws: a harness failure becomes a `failed` record. */
async function runLocalizerAttempt(
  plan: RunPlan,
  { attempt, n, lease, pool, window, onRetry }: AttemptRequest,
  workspaces: CellWorkspaces,
  gold: GoldTerms,
): Promise<RunRecord> {
  const { spec } = plan;
  const endpoint = { baseURL: urlWithoutCredentials(lease.endpoint.baseURL), model: lease.endpoint.model };
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const trajectoryPath = runLayout.trajectory(spec.out, attempt.cellLabel, attempt.instance.instance_id, n);
  const base = baseRecord(attempt, n, endpoint, startedAt);
  try {
    await mkdir(runLayout.trajectoryDir(spec.out, attempt.cellLabel, attempt.instance.instance_id), {
      recursive: true,
    });
    const { result, prepared, prediction, contextLimitTokens } = await localizeOnLease(
      plan,
      { attempt, n, lease, pool, window, onRetry },
      workspaces,
      { trajectoryPath, startedAt },
    );
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
      ...recordOfResult(result),
      wallMs: performance.now() - started,
      trajectory: relative(spec.out, trajectoryPath),
      ...(prediction ? { prediction } : {}),
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

/** What one localizer episode on a leased endpoint gave: the result, the cell's workspace, the prediction in original names. */
export interface LeasedLocalization {
  result: LocalizeResult;
  prepared: PreparedAttempt;
  /** In the original repository's names, tagged with the cell's seed and control; absent when none was submitted. */
  prediction: Prediction | undefined;
  contextLimitTokens: number | undefined;
}

/**
 * One localizer episode of the run's localizer settings on the attempt's leased endpoint, in the
 * cell's workspace (its control applied): a localization run's attempt, and a repair run's
 * localizer stage (the prediction its hand-off arms share). Throws what preparing the workspace
 * throws; the episode's own failures are in the result.
 */
export async function localizeOnLease(
  plan: RunPlan,
  { attempt, n, lease, pool, window, onRetry }: AttemptRequest,
  workspaces: CellWorkspaces,
  { trajectoryPath, startedAt }: { trajectoryPath: string; startedAt: string },
): Promise<LeasedLocalization> {
  const { localizer } = plan.spec;
  const endpoint = { baseURL: urlWithoutCredentials(lease.endpoint.baseURL), model: lease.endpoint.model };
  const prepared = await workspaces.prepare(attempt);
  const client = pooledClient(
    plan,
    { attempt, lease, pool, onRetry },
    {
      ...samplingOf(localizer),
      ...(localizer.maxOutputTokens !== undefined ? { maxOutputTokens: localizer.maxOutputTokens } : {}),
      requestTimeoutSeconds: localizer.requestTimeoutSeconds,
      callDeadlineSeconds: localizer.callDeadlineSeconds,
    },
  );
  const contextLimitTokens = contextLimitFor({
    spec: localizer.contextLimitTokens,
    window,
    maxOutputTokens: localizer.maxOutputTokens,
  });
  const result = await localizeInstance(
    localizeOptions(plan, { attempt, n, endpoint, startedAt, trajectoryPath, prepared, client, contextLimitTokens }),
  );
  return { result, prepared, prediction: predictionOf(result.prediction, prepared, attempt), contextLimitTokens };
}

/** The options of one `localizeInstance` call: the spec's localizer and budgets, the cell's workspace, provenance. */
function localizeOptions(
  plan: RunPlan,
  context: {
    attempt: PlannedAttempt;
    n: number;
    endpoint: { baseURL: string; model: string };
    startedAt: string;
    trajectoryPath: string;
    prepared: PreparedAttempt;
    client: ModelClient;
    contextLimitTokens: number | undefined;
  },
): LocalizeInstanceOptions {
  const { spec } = plan;
  const { localizer } = spec;
  const { attempt, n, endpoint, startedAt, trajectoryPath, prepared, client, contextLimitTokens } = context;
  return {
    instance: { instance_id: attempt.instance.instance_id, problem_statement: prepared.problemStatement },
    // Opaque: the key's first digits name neither the repository nor the issue, and differ per cell.
    taskLabel: `task-${attempt.key.slice(0, 8)}`,
    workspace: prepared.workspace,
    client,
    maxTurns: localizer.maxTurns,
    maxLocations: localizer.maxLocations,
    toolMode: localizer.toolMode,
    ...(localizer.decoding ? { toolCalls: localizer.decoding } : {}),
    ...(localizer.profile ? { profile: localizer.profile } : {}),
    ...(localizer.profile === "sherloc" && prepared.originalPathOf
      ? { sherlocTools: { originalPathOf: prepared.originalPathOf } }
      : {}),
    ...(contextLimitTokens !== undefined ? { contextLimitTokens } : {}),
    ...(spec.budgets.instance.tokens !== undefined ? { maxTotalTokens: spec.budgets.instance.tokens } : {}),
    ...(spec.budgets.instance.wallSeconds !== undefined ? { maxWallMs: spec.budgets.instance.wallSeconds * 1000 } : {}),
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
        localizer: plan.localizationConfig,
      },
    },
  };
}

/**
 * What a ledger record takes from the localizer's result: its outcome (a transport failure after
 * the client's retries is the endpoint's doing: `infra_error`), exit, turns, usage and retries.
 */
export function recordOfResult(
  result: LocalizeResult,
): Pick<RunRecord, "outcome" | "exit" | "turns" | "usage" | "modelMs" | "retries"> & { error?: string } {
  return {
    outcome:
      result.outcome === "model_error" && result.errorKind !== undefined && result.errorKind !== "request"
        ? "infra_error"
        : result.outcome,
    exit: result.exit,
    turns: result.turns,
    usage: result.usage,
    modelMs: result.modelMs,
    retries: result.retries.map(({ attempt, error, message, waitedMs }) => ({ attempt, error, message, waitedMs })),
    ...(result.error ? { error: result.error } : {}),
  };
}

/** The localizer's prediction in the original repository's names, tagged with its cell. */
function predictionOf(
  prediction: Prediction | undefined,
  prepared: PreparedAttempt,
  attempt: PlannedAttempt,
): Prediction | undefined {
  if (!prediction) return undefined;
  return { ...prepared.toOriginal(prediction).prediction, seed: attempt.cell.seed, control: attempt.cell.control };
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
