import { existsSync } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { countTokens, checkoutCode, renderContext } from "@loclab/fgl";
import {
  evaluateInstance,
  type EvaluationInstance,
  type ImageSource,
  INSTANCE_FILES,
  InfraFailure,
  instanceDirectory,
  type InstanceOutcome,
  sha256,
} from "@loclab/evaluation";
import {
  ContainerSandbox,
  FGL_SINGLE_AGENT,
  fixInstance,
  type LocalizerRunner,
  localizerTool,
  SandboxStartError,
} from "@loclab/fixer";
import type { HarnessSpec } from "@loclab/grading";
import { urlWithoutCredentials } from "@loclab/openai-http";
import {
  type AttemptRequest,
  armCallBudget,
  baseRecord,
  type CellWorkspaces,
  LOCALIZER_ARMS,
  pooledClient,
  type RepairArm,
  type RunPlan,
  RUNNER_VERSION,
} from "@loclab/runner";
import { type RepairRecord, type RunRecord, runLayout, writeFileAtomic } from "@loclab/schemas";
import type Docker from "dockerode";
import { evaluationLimitsOf, limitsHit, patchLimitsOf, sandboxLimitsOf } from "./attempt-limits.js";
import { localizerHandOff, oracleHandOff } from "./attempt-hand-offs.js";
import { type AgentResult, fixWithMiniSweAgent } from "./mini-swe-agent/fix-with-mini.js";
import { miniSweAgentPython } from "./mini-swe-agent/setup.js";
import type { JudgeRole } from "./judge-role.js";
import { type LocalizerStage, StageInfraError } from "./localizer-stage.js";
import { patchFiles } from "./patch-files.js";
import { REPAIR_RUN_LABEL } from "./run-tag.js";

/** What a session's attempts share: the engine, the images, the harness specs, the workspaces (two agents). */
export interface RepairSession {
  docker: Docker;
  images: ImageSource;
  /** The harness spec of an instance (the harness's table, and the spec's extra specs). */
  specFor(instance: EvaluationInstance): HarnessSpec;
  workspaces: CellWorkspaces;
  /** The localizer stage the hand-off arms share (a run with a `locations`, `findings` or `judged` arm). */
  stage?: LocalizerStage;
  /** The run's judge (a spec with a judge block). */
  judge?: JudgeRole;
  /** mini-swe-agent's Python (a run with the mini-swe-agent framework). */
  miniPython?: string;
  /** The evaluations' pool: at most `repair.evaluation.concurrency` at once, apart from the endpoint slots. */
  evaluations: <T>(work: () => Promise<T>) => Promise<T>;
  /** The run's tag: its containers' label and the evaluation's run id. */
  tag: string;
  evaluationCache: string | undefined;
}

/** The files of one attempt beside its trajectory (`attempt-N.traj.jsonl`). */
export function attemptFiles(dir: string, n: number) {
  return {
    patch: join(dir, `attempt-${n}.patch`),
    report: join(dir, `attempt-${n}.report.json`),
    outcome: join(dir, `attempt-${n}.outcome.json`),
    /** The evaluation's own folder (the harness's layout: logs/run_evaluation/…). */
    evaluation: join(dir, `attempt-${n}.eval`),
    localizer: join(dir, `attempt-${n}.localizer`),
    /** mini-swe-agent's own trajectory (its format, `.traj.json`). */
    miniTrajectory: join(dir, `attempt-${n}.traj.json`),
  };
}

/**
 * One repair attempt (docs/definitions.md §9, "Repair runs"): the instance image → a sandbox
 * container from it, labelled with the run → the fixer (its trajectory in the run folder) →
 * the final patch, written beside the trajectory → the evaluation in a fresh container from the
 * same image (the evaluation package's own path; report.json copied beside the trajectory) →
 * the ledger record. The sandbox is removed whatever happens. Never throws: what is the
 * infrastructure's doing (no image, a sandbox that does not start, the model server failing in
 * transport, the evaluation failing) is `infra_error`, retried; a harness fault is `failed`.
 */
export async function runRepairAttempt(
  plan: RunPlan,
  request: AttemptRequest,
  session: RepairSession,
): Promise<RunRecord> {
  const { spec } = plan;
  const repair = spec.repair!;
  const { attempt, n, lease } = request;
  const arm = (attempt.cell.arm ?? "single") as RepairArm;
  const endpoint = { baseURL: urlWithoutCredentials(lease.endpoint.baseURL), model: lease.endpoint.model };
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const instanceId = attempt.instance.instance_id;
  const dir = runLayout.trajectoryDir(spec.out, attempt.cellLabel, instanceId);
  const trajectoryPath = runLayout.trajectory(spec.out, attempt.cellLabel, instanceId, n);
  const files = attemptFiles(dir, n);
  const base = baseRecord(attempt, n, endpoint, startedAt);
  const rel = (path: string) => relative(spec.out, path);
  const ended = (fields: Partial<RunRecord>): RunRecord => ({
    ...base,
    wallMs: performance.now() - started,
    trajectory: existsSync(trajectoryPath)
      ? rel(trajectoryPath)
      : existsSync(files.miniTrajectory)
        ? rel(files.miniTrajectory)
        : null,
    ...fields,
    endedAt: new Date().toISOString(),
  });
  const instance = attempt.instance as EvaluationInstance;
  let harnessSpec: HarnessSpec;
  try {
    harnessSpec = session.specFor(instance);
  } catch (error) {
    // The run cannot grade this instance: a setting to fix, not a fault to retry.
    return ended({ outcome: "failed", error: `${instanceId}: ${(error as Error).message}` });
  }
  let sandbox: ContainerSandbox | undefined;
  const ms = { sandbox: 0, fixer: 0, evaluation: 0, evaluationQueue: 0 };
  let stageUsage: RunRecord["usage"] | undefined;
  try {
    await mkdir(dir, { recursive: true });
    // The hand-off first (the localizer stage, the judge): no sandbox waits idle meanwhile.
    let handOff: { text: string | undefined; record: NonNullable<RepairRecord["handOff"]> } | undefined;
    if (arm === "oracle") handOff = oracleHandOff(instance);
    else if (LOCALIZER_ARMS.has(arm)) {
      handOff = await localizerHandOff(request, session, arm as "locations" | "findings" | "judged", rel);
      // The stage's tokens are counted where they were spent: in the one attempt that ran it.
      if (handOff.record.localization?.ran) stageUsage = handOff.record.localization.usage;
    }
    const sandboxStarted = performance.now();
    const image = await session.images.imageFor(instance, harnessSpec);
    sandbox = await ContainerSandbox.start(session.docker, {
      image: image.name,
      attempt: `${attempt.key.slice(0, 16)}-${n}`,
      labels: { [REPAIR_RUN_LABEL]: session.tag, "loclab.instance": instanceId },
      limits: sandboxLimitsOf(repair),
    });
    ms.sandbox = performance.now() - sandboxStarted;
    const client = pooledClient(plan, request, {
      ...(repair.temperature !== undefined ? { temperature: repair.temperature } : {}),
      ...(repair.topP !== undefined ? { topP: repair.topP } : {}),
      ...(repair.maxOutputTokens !== undefined ? { maxOutputTokens: repair.maxOutputTokens } : {}),
      requestTimeoutSeconds: repair.requestTimeoutSeconds,
      callDeadlineSeconds: repair.callDeadlineSeconds,
    });
    const provenance = {
      tool: "loclab",
      toolVersion: RUNNER_VERSION,
      createdAt: startedAt,
      inputs: { run: spec.name ?? null, benchmark: plan.benchmarkName, key: attempt.key, attempt: n, arm, endpoint },
    };
    let localizer: LocalizerRunner | undefined;
    if (arm === "two-agent") {
      const prepared = await session.workspaces.prepare(attempt);
      localizer = localizerTool({
        workspace: prepared.workspace,
        client,
        trajectoryDir: files.localizer,
        maxCalls: repair.localizer.maxCalls,
        maxLocations: repair.localizer.maxLocations,
        ...(repair.decoding ? { toolCalls: repair.decoding } : {}),
        // ctx(z) as FGL renders it, counted by the server's own tokenizer.
        render: (locations) =>
          renderContext(locations, checkoutCode(prepared.workspace), {
            budget: repair.localizer.contextTokens,
            countTokens: (text) =>
              countTokens(lease.endpoint, text).catch((error: Error) => {
                throw new Error(
                  `the two-agent arm fits ctx(z) in ${repair.localizer.contextTokens} tokens counted by the server's /tokenize (vLLM, loclab serve): ${error.message}`,
                );
              }),
          }),
        provenance,
      });
    }
    const fixerStarted = performance.now();
    const mini = attempt.cell.framework === "mini-swe-agent";
    const result = mini
      ? await fixWithMiniSweAgent(sandbox, {
          python: session.miniPython ?? miniSweAgentPython(),
          task: attempt.instance.problem_statement,
          ...(handOff?.text ? { handOff: handOff.text } : {}),
          endpoint: {
            ...endpoint,
            ...(lease.endpoint.apiKeyEnv ? { apiKeyEnv: lease.endpoint.apiKeyEnv } : {}),
          },
          sampling: {
            ...(repair.temperature !== undefined ? { temperature: repair.temperature } : {}),
            ...(repair.topP !== undefined ? { topP: repair.topP } : {}),
            ...(attempt.cell.seed !== null ? { seed: attempt.cell.seed } : {}),
            ...(repair.maxOutputTokens !== undefined ? { maxTokens: repair.maxOutputTokens } : {}),
          },
          stepLimit: repair.miniSweAgent.stepLimit ?? armCallBudget(repair, arm),
          costLimit: repair.miniSweAgent.costLimit,
          wallSeconds: repair.wallSeconds,
          commandTimeoutSeconds: repair.commandTimeoutSeconds,
          trajectoryPath: files.miniTrajectory,
          patchLimits: patchLimitsOf(repair),
        })
      : await fixInstance({
          instance: { instance_id: instanceId, problem_statement: attempt.instance.problem_statement },
          sandbox,
          client,
          trajectoryPath,
          limits: {
            ...FGL_SINGLE_AGENT,
            callBudget: armCallBudget(repair, arm),
            wallMs: repair.wallSeconds * 1000,
            commandTimeoutMs: repair.commandTimeoutSeconds * 1000,
          },
          ...(repair.maxTurns !== undefined ? { maxTurns: repair.maxTurns } : {}),
          ...(localizer ? { localizer } : {}),
          ...(repair.compaction ? { compaction: repair.compaction } : {}),
          ...(handOff?.text ? { handOff: handOff.text } : {}),
          ...(repair.decoding ? { toolCalls: repair.decoding } : {}),
          patchLimits: patchLimitsOf(repair),
          provenance,
        });
    ms.fixer = performance.now() - fixerStarted;
    // The model calls are over: the slot goes to the next attempt while this one is evaluated.
    request.releaseSlot?.();
    await sandbox.remove();
    sandbox = undefined;
    const fixed = fixerFields(result, stageUsage);
    if (result.exit === "error" && result.errorKind !== "request")
      // The server failed in transport after the client's retries: not the model's doing.
      return ended({ ...fixed, outcome: "infra_error", error: result.error ?? "the model call failed" });
    await writeFileAtomic(files.patch, result.patch);
    const queued = performance.now();
    let evaluationStarted = queued;
    const outcome = await session.evaluations(() => {
      evaluationStarted = performance.now();
      ms.evaluationQueue = evaluationStarted - queued;
      return evaluateInstance(session.docker, {
        instance,
        spec: harnessSpec,
        modelName: endpoint.model,
        modelPatch: result.patch,
        ...(result.patchOverLimit ? { patchOverLimit: result.patchOverLimit.note } : {}),
        runId: session.tag,
        out: files.evaluation,
        images: session.images,
        timeoutMs: repair.evaluation.timeoutSeconds * 1000,
        limits: evaluationLimitsOf(repair),
        ...(session.evaluationCache ? { cacheDir: session.evaluationCache } : {}),
      });
    });
    ms.evaluation = performance.now() - evaluationStarted;
    const report = await keepBeside(files, session.tag, endpoint.model, instanceId);
    if (outcome.status === "infra-failure")
      return ended({
        ...fixed,
        outcome: "infra_error",
        error: `evaluation: ${outcome.infra_failure_reason}: ${outcome.infra_failure_detail ?? ""}`.trim(),
      });
    const limits = limitsHit(result);
    const record: RepairRecord = {
      resolved: outcome.status === "resolved",
      evaluation: {
        status: outcome.status,
        patchApplied: patchApplied(outcome),
        report: report ? rel(files.report) : null,
        outcome: rel(files.outcome),
        cached: outcome.cached,
        ms: ms.evaluation,
      },
      calls: result.calls,
      callBudget: armCallBudget(repair, arm),
      patch: {
        sha256: sha256(result.patch),
        bytes: Buffer.byteLength(result.patch),
        files: patchFiles(result.patch),
        path: rel(files.patch),
        ...(result.patchOverLimit ? { overLimit: result.patchOverLimit } : {}),
      },
      agents: result.agents,
      phases: result.phases,
      loops: { count: result.loops.length, ms: result.loops.reduce((sum, loop) => sum + loop.ms, 0) },
      toolErrors: toolErrors(result),
      ...(limits ? { limits } : {}),
      recoveries: result.recoveries.length,
      compactions: result.compactions.length,
      localizerTrajectories: result.localizerTrajectories.map(rel),
      ...(handOff ? { handOff: handOff.record } : {}),
      ms,
    };
    return ended({ ...fixed, outcome: "evaluated", repair: record });
  } catch (error) {
    const infra =
      error instanceof InfraFailure || error instanceof SandboxStartError || error instanceof StageInfraError;
    const message =
      error instanceof InfraFailure ? `${error.reason}: ${error.message}` : ((error as Error).message ?? String(error));
    return ended({
      outcome: infra ? "infra_error" : "failed",
      error: message,
      ...(stageUsage ? { usage: stageUsage } : {}),
    });
  } finally {
    await sandbox?.remove().catch(() => undefined);
  }
}

/**
 * What the ledger record takes from the fixer's result: its exit, turns, tokens (both agents,
 * and the localizer stage's when this attempt ran it) and model time.
 */
function fixerFields(
  result: AgentResult,
  stage?: RunRecord["usage"],
): Pick<RunRecord, "exit" | "turns" | "usage" | "modelMs"> {
  const { fixer, localizer } = result.agents;
  return {
    exit: result.exit,
    turns: result.turns,
    usage: {
      promptTokens: fixer.promptTokens + localizer.promptTokens + (stage?.promptTokens ?? 0),
      completionTokens: fixer.completionTokens + localizer.completionTokens + (stage?.completionTokens ?? 0),
      totalTokens: fixer.totalTokens + localizer.totalTokens + (stage?.totalTokens ?? 0),
      apiCalls: fixer.apiCalls + localizer.apiCalls + (stage?.apiCalls ?? 0),
    },
    modelMs: result.modelMs,
  };
}

/** Tool errors of the attempt, by kind. */
function toolErrors(result: AgentResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const tool of result.toolResults) if (tool.error) counts[tool.error] = (counts[tool.error] ?? 0) + 1;
  return counts;
}

/** Whether the patch applied: null for an empty patch (the harness does not try it). */
function patchApplied(outcome: InstanceOutcome): boolean | null {
  // Neither an empty patch nor one over the patch limits is ever applied.
  if (outcome.status === "empty-patch" || outcome.status === "patch-too-large") return null;
  return outcome.status !== "patch-apply-failed";
}

/** Copies the evaluation's report.json and outcome.json beside the trajectory; whether there was a report. */
async function keepBeside(
  files: ReturnType<typeof attemptFiles>,
  tag: string,
  model: string,
  instanceId: string,
): Promise<boolean> {
  const from = instanceDirectory(files.evaluation, tag, model, instanceId);
  await copyFile(join(from, INSTANCE_FILES.outcome), files.outcome);
  if (!existsSync(join(from, INSTANCE_FILES.report))) return false;
  await copyFile(join(from, INSTANCE_FILES.report), files.report);
  return true;
}
