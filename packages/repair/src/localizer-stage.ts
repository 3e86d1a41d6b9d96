import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { urlWithoutCredentials } from "@loclab/openai-http";
import {
  type AttemptRequest,
  type CellWorkspaces,
  localizationStageKey,
  localizeOnLease,
  type RunPlan,
  recordOfResult,
} from "@loclab/runner";
import { ControlSchema, PredictionSchema, runLayout, writeFileAtomic } from "@loclab/schemas";
import { z } from "zod";
import { readCheckedJson } from "./read-checked-json.js";

const Count = z.number().int().nonnegative();

/**
 * A localizer stage's stored result (`localizations/<key>.json`): how the episode ended, its
 * tokens, and the prediction in the original repository's names. Written once, atomically,
 * when the episode ended for a reason of the model's (a transport failure is not stored: the
 * attempt is retried, and the stage with it).
 */
export const StageResultSchema = z.strictObject({
  key: z.string().regex(/^[0-9a-f]{64}$/),
  instanceId: z.string().min(1),
  seed: z.number().int().nullable(),
  control: ControlSchema,
  outcome: z.string().min(1),
  exit: z.string().optional(),
  turns: Count,
  usage: z.strictObject({
    promptTokens: Count,
    completionTokens: Count,
    totalTokens: Count,
    apiCalls: Count.optional(),
  }),
  modelMs: z.number().nonnegative().optional(),
  prediction: PredictionSchema.optional(),
  error: z.string().optional(),
  /** Relative to the run folder. */
  trajectory: z.string().min(1).nullable(),
  endpoint: z.strictObject({ baseURL: z.string(), model: z.string() }),
  endedAt: z.string(),
});
export type StageResult = z.output<typeof StageResultSchema>;

/** The localizer stage's transport failure: the attempt is the infrastructure's (`infra_error`), retried. */
export class StageInfraError extends Error {
  override readonly name = "StageInfraError";
}

/**
 * The localizer stage of a repair run (docs/definitions.md §9): one localizer episode per task
 * × seed × control, its prediction shared by the `locations`, `findings` and `judged` arms. The
 * first attempt that needs it runs it, on its own lease; attempts in flight at the same time
 * wait for that episode; later attempts, and later sessions, read the stored result. So its
 * tokens are spent once, and counted in the record of the attempt that ran it (`ran`).
 */
export class LocalizerStage {
  readonly #plan: RunPlan;
  readonly #workspaces: CellWorkspaces;
  readonly #pending = new Map<string, Promise<StageResult>>();

  constructor(plan: RunPlan, workspaces: CellWorkspaces) {
    this.#plan = plan;
    this.#workspaces = workspaces;
  }

  /** The stage of the request's task × seed × control: its result and whether this request ran it. */
  async get(request: AttemptRequest): Promise<{ result: StageResult; ran: boolean; path: string }> {
    const key = localizationStageKey(this.#plan, request.attempt);
    const path = runLayout.localizationStage(this.#plan.spec.out, key);
    const pending = this.#pending.get(key);
    if (pending) return { result: await pending, ran: false, path };
    if (existsSync(path)) {
      const result = await readStageResult(path);
      return { result, ran: false, path };
    }
    const running = this.#run(key, request);
    this.#pending.set(key, running);
    // A failed stage is tried again by the next attempt that needs it (the failure is the infrastructure's).
    running.catch(() => this.#pending.delete(key));
    return { result: await running, ran: true, path };
  }

  async #run(key: string, request: AttemptRequest): Promise<StageResult> {
    const { out } = this.#plan.spec;
    const path = runLayout.localizationStage(out, key);
    const trajectoryPath = runLayout.localizationTrajectory(out, key);
    await mkdir(dirname(path), { recursive: true });
    // A killed session's partial trajectory of this stage is replaced, not appended to.
    await rm(trajectoryPath, { force: true });
    const startedAt = new Date().toISOString();
    // The episode is keyed as a localization run's attempt: its task label and provenance are the stage's, whichever arm ran it.
    const stageRequest: AttemptRequest = { ...request, n: 1, attempt: { ...request.attempt, key } };
    const { result, prediction } = await localizeOnLease(this.#plan, stageRequest, this.#workspaces, {
      trajectoryPath,
      startedAt,
    });
    const fields = recordOfResult(result);
    if (fields.outcome === "infra_error")
      throw new StageInfraError(`the localizer stage: ${fields.error ?? "the model server failed in transport"}`);
    const { attempt, lease } = request;
    const stored: StageResult = {
      key,
      instanceId: attempt.instance.instance_id,
      seed: attempt.cell.seed,
      control: attempt.cell.control,
      outcome: fields.outcome ?? "unknown",
      ...(fields.exit ? { exit: fields.exit } : {}),
      turns: fields.turns ?? 0,
      usage: {
        promptTokens: fields.usage?.promptTokens ?? 0,
        completionTokens: fields.usage?.completionTokens ?? 0,
        totalTokens: fields.usage?.totalTokens ?? 0,
        ...(fields.usage?.apiCalls !== undefined ? { apiCalls: fields.usage.apiCalls } : {}),
      },
      ...(fields.modelMs !== undefined ? { modelMs: fields.modelMs } : {}),
      ...(prediction ? { prediction } : {}),
      ...(fields.error ? { error: fields.error } : {}),
      trajectory: existsSync(trajectoryPath) ? relative(out, trajectoryPath) : null,
      endpoint: { baseURL: urlWithoutCredentials(lease.endpoint.baseURL), model: lease.endpoint.model },
      endedAt: new Date().toISOString(),
    };
    await writeFileAtomic(path, `${JSON.stringify(stored)}\n`);
    return stored;
  }
}

/** A stored stage result, checked; an unreadable one is named with its file. */
export function readStageResult(path: string): Promise<StageResult> {
  return readCheckedJson(path, StageResultSchema, "stage result");
}
