import { join } from "node:path";
import { homedir } from "node:os";
import { connectDocker, type DockerEngineOptions, removeLabelledContainers } from "@loclab/docker";
import {
  type EvaluationInstance,
  type ImageSource,
  limiter,
  localImages,
  prebuiltImages,
  readSpecsFile,
  type SpecsFile,
  specForInstance,
} from "@loclab/evaluation";
import {
  CellWorkspaces,
  LOCALIZER_ARMS,
  type PlannedAttempt,
  type RepairArm,
  type RunKind,
  type RunKindSession,
} from "@loclab/runner";
import { defaultWorkspaceCacheDir } from "@loclab/tools";
import type Docker from "dockerode";
import { JudgeRole } from "./judge-role.js";
import { LocalizerStage } from "./localizer-stage.js";
import { miniSweAgentPython } from "./mini-swe-agent/setup.js";
import { type RepairSession, runRepairAttempt } from "./repair-attempt.js";
import { REPAIR_RUN_LABEL, repairRunTag } from "./run-tag.js";

export interface RepairRunKindOptions {
  /** The Docker engine (default: `DOCKER_HOST`, else /var/run/docker.sock). */
  docker?: DockerEngineOptions;
  /** Image builds' progress lines (local images). */
  onLog?: (line: string) => void;
}

/** What the first session's clean-up removed: containers a killed runner of this folder left. */
export interface LeftoverContainers {
  sandboxes: number;
  evaluations: number;
}

/** Evaluations at once when `repair.evaluation.concurrency` is not set. */
export const DEFAULT_EVALUATION_CONCURRENCY = 2;

/**
 * What a repair attempt needs before its endpoint slot: its instance image (built on first use:
 * minutes) and, for the arms with a localizer (two agents, the hand-off arms' stage), the cell's
 * workspace it reads. The attempt asks for both again and finds them made (builds of one image
 * are shared, workspaces cached).
 */
async function prepareRepairAttempt(session: RepairSession, attempt: PlannedAttempt): Promise<void> {
  const instance = attempt.instance as EvaluationInstance;
  await session.images.imageFor(instance, session.specFor(instance));
  const arm = (attempt.cell.arm ?? "single") as RepairArm;
  if (arm === "two-agent" || LOCALIZER_ARMS.has(arm)) await session.workspaces.prepare(attempt);
}

/**
 * The repair run kind (`kind: repair` specs): each attempt is the fixer in a container of the
 * task's image, its final patch evaluated in a fresh one (`runRepairAttempt`). Opening a
 * session connects to the engine (no engine: the run stops before any attempt, nothing
 * recorded), removes the containers a killed earlier session of this folder left (by the run's
 * label), and reads the extra harness specs.
 */
export function repairRunKind(options: RepairRunKindOptions = {}): RunKind & { leftovers?: LeftoverContainers } {
  const kind: RunKind & { leftovers?: LeftoverContainers } = {
    name: "repair",
    async openSession(plan): Promise<RunKindSession> {
      const { spec } = plan;
      const repair = spec.repair;
      if (!repair) throw new Error(`${spec.out}: not a repair run (its spec has no repair block)`);
      const { docker } = await connectDocker(options.docker ?? {});
      const tag = repairRunTag(spec.out);
      kind.leftovers = await removeLeftovers(docker, tag);
      const extra: SpecsFile = repair.evaluation.specs ? await readSpecsFile(repair.evaluation.specs) : {};
      const images: ImageSource =
        repair.images.source === "prebuilt"
          ? prebuiltImages(docker, { pull: repair.images.pull })
          : localImages(docker, {
              repos: spec.repos,
              ...(repair.images.harnessEnvironments ? { harnessEnvironments: repair.images.harnessEnvironments } : {}),
              ...(options.onLog ? { onProgress: options.onLog } : {}),
            });
      const workspaces = new CellWorkspaces({
        mirrors: spec.repos,
        cacheDir: spec.cacheDir ?? defaultWorkspaceCacheDir(),
      });
      const session: RepairSession = {
        docker,
        images,
        specFor: (instance: Parameters<typeof specForInstance>[0]) => specForInstance(instance, extra),
        workspaces,
        tag,
        evaluations: limiter(repair.evaluation.concurrency ?? DEFAULT_EVALUATION_CONCURRENCY),
        evaluationCache: repair.evaluation.cacheDir ?? join(homedir(), ".cache", "loclab", "evaluations"),
        ...(repair.arms.some((arm) => LOCALIZER_ARMS.has(arm)) ? { stage: new LocalizerStage(plan, workspaces) } : {}),
        ...(plan.judge ? { judge: new JudgeRole(plan.judge, { out: spec.out, retry: spec.retry }) } : {}),
      };
      if (repair.frameworks.includes("mini-swe-agent")) session.miniPython = miniSweAgentPython();
      return {
        runAttempt: (request) => runRepairAttempt(plan, request, session),
        prepare: (attempt) => prepareRepairAttempt(session, attempt),
      };
    },
  };
  return kind;
}

/** Removes the sandboxes and evaluation containers labelled with the run's tag. */
export async function removeLeftovers(docker: Docker, tag: string): Promise<LeftoverContainers> {
  return {
    sandboxes: await removeLabelledContainers(docker, `${REPAIR_RUN_LABEL}=${tag}`),
    evaluations: await removeLabelledContainers(docker, `loclab.eval.run=${tag}`),
  };
}
