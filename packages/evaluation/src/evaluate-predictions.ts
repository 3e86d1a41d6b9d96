import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type Docker from "dockerode";
import type { EvaluationLimits } from "./evaluation-limits.js";
import { connectDocker, type DockerEngineOptions } from "@loclab/docker";
import { HARNESS_VERSION, modifiedFiles, type HarnessSpec } from "@loclab/grading";
import { defaultValidationDir } from "./validation.js";
import { checkDiskSpace } from "./disk-space.js";
import { evaluateInstance } from "./evaluate-instance.js";
import {
  type LocalImageSettings,
  localImageSettings,
  localImages,
  prebuiltImages,
  specForInstance,
  type EvaluationInstance,
  type ImageSource,
} from "./image-source.js";
import { removeContainersOnSignal } from "./live-containers.js";
import { InstanceOutcomeSchema, type InstanceOutcome } from "./outcome.js";
import type { SwePrediction } from "./predictions-file.js";
import { sha256 } from "./content-hash.js";
import { INSTANCE_FILES, instanceDirectory, summaryPath } from "./run-layout.js";
import { runSummary, type RunSummary } from "./run-summary.js";

export type EvaluationProgress =
  | { kind: "instance"; done: number; total: number; outcome: InstanceOutcome; resumed: boolean }
  | { kind: "log"; line: string };

export interface EvaluatePredictionsOptions extends LocalImageSettings {
  predictions: readonly SwePrediction[];
  /** The benchmark's instances (its whole split: ids without a prediction are `incomplete_ids`). */
  instances: readonly EvaluationInstance[];
  runId: string;
  /** Where logs/run_evaluation/… and the summary go; default the current folder, as the harness. */
  out?: string;
  images: "prebuilt" | "local";
  /** Mirrors (`<owner>__<name>.git` or `<owner>__<name>`, bare or not), needed for local images. */
  repos?: string;
  /** Instances evaluated at once; default 2. */
  concurrency?: number;
  /** Per instance, the eval script's limit; default 1800 s (the harness's). */
  timeoutMs?: number;
  /** Memory limit per container; DEFAULT_EVALUATION_LIMITS' (8,192 MiB) when absent. */
  memoryBytes?: number;
  /** Processes, CPUs and the test log's cap per container, over DEFAULT_EVALUATION_LIMITS. */
  limits?: Partial<EvaluationLimits>;
  /** Result cache across runs; default ~/.cache/loclab/evaluations; false for none. */
  cacheDir?: string | false;
  /** Specs for repositories or versions the harness does not know (`repo → version → spec`). */
  specs?: Readonly<Record<string, Readonly<Record<string, HarnessSpec>>>>;
  docker?: DockerEngineOptions;
  /** Free disk needed where the engine keeps images; default 10 GiB with local images, 2 GiB otherwise. */
  minFreeBytes?: number;
  prebuilt?: { namespace?: string; tag?: string; pull?: boolean };
  /** Run the tests even for an empty patch (calibration). */
  runEmptyPatches?: boolean;
  /** Where calibrations record validated images (default ~/.cache/loclab/validations; false: not looked up). */
  validationDir?: string | false;
  onProgress?: (event: EvaluationProgress) => void;
  onContainer?: (instanceId: string, container: Docker.Container) => void;
}

export interface EvaluationResult {
  summary: RunSummary;
  summaryPath: string;
  outcomes: InstanceOutcome[];
}

export class EvaluationInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvaluationInputError";
  }
}

/**
 * Evaluates a predictions file against a benchmark, as `python -m swebench.harness.run_evaluation`
 * does, on a Docker engine reached through dockerode. Everything that can be checked is checked
 * before any container starts (prediction ids in the dataset, a spec for every instance, the
 * engine, free disk, mirrors for local images). Instances run `concurrency` at a time; each is
 * written as it finishes, so a crash loses nothing: a second call with the same run id skips
 * the instances whose outcome is on disk for the same patch (infrastructure failures are tried
 * again). Containers are removed also when the process is interrupted.
 */
export async function evaluatePredictions(options: EvaluatePredictionsOptions): Promise<EvaluationResult> {
  const out = resolve(options.out ?? ".");
  const byId = new Map(options.instances.map((instance) => [instance.instance_id, instance]));
  const unknown = options.predictions
    .filter((prediction) => !byId.has(prediction.instance_id))
    .map((prediction) => prediction.instance_id);
  if (unknown.length > 0)
    throw new EvaluationInputError(
      `${unknown.length} prediction(s) for instances not in the benchmark: ${unknown.slice(0, 10).join(", ")}${unknown.length > 10 ? ", …" : ""}`,
    );
  const work = options.predictions.map((prediction) => {
    const instance = byId.get(prediction.instance_id)!;
    if (!instance.test_patch)
      throw new EvaluationInputError(
        `${instance.instance_id}: the benchmark row has no test_patch (evaluation needs SWE-bench's full rows, e.g. lite)`,
      );
    let spec: HarnessSpec;
    try {
      spec = specForInstance(instance, options.specs);
      modifiedFiles(instance.test_patch);
    } catch (error) {
      throw new EvaluationInputError(`${instance.instance_id}: ${(error as Error).message}`);
    }
    return { prediction, instance, spec };
  });
  if (options.images === "local" && !options.repos)
    throw new EvaluationInputError("local images are built from mirrors: give the folder of mirrors (repos)");
  const { docker } = await connectDocker(options.docker ?? {});
  const log = (line: string) => options.onProgress?.({ kind: "log", line });
  const disk = await checkDiskSpace(
    docker,
    options.minFreeBytes ?? (options.images === "local" ? 10 * 2 ** 30 : 2 * 2 ** 30),
  );
  if ("unchecked" in disk) log(`free disk at ${disk.path} not checked: ${disk.unchecked}`);
  removeContainersOnSignal();
  const images: ImageSource =
    options.images === "local"
      ? localImages(docker, { ...localImageSettings(options), repos: options.repos!, onProgress: log })
      : prebuiltImages(docker, options.prebuilt ?? {});
  const cacheDir =
    options.cacheDir === false ? undefined : (options.cacheDir ?? join(homedir(), ".cache", "loclab", "evaluations"));
  const timeoutMs = options.timeoutMs ?? 1_800_000;
  const validationDir = options.validationDir === false ? undefined : (options.validationDir ?? defaultValidationDir());
  const outcomes: InstanceOutcome[] = [];
  let done = 0;
  const queue = [...work];
  const worker = async () => {
    for (let item = queue.shift(); item; item = queue.shift()) {
      const { prediction, instance, spec } = item;
      const previous = await resumable(out, options.runId, prediction);
      const outcome =
        previous ??
        (await evaluateInstance(docker, {
          instance,
          spec,
          modelName: prediction.model_name_or_path,
          modelPatch: prediction.model_patch,
          runId: options.runId,
          out,
          images,
          timeoutMs,
          ...(options.memoryBytes ? { memoryBytes: options.memoryBytes } : {}),
          ...(options.limits ? { limits: options.limits } : {}),
          ...(cacheDir ? { cacheDir } : {}),
          ...(options.runEmptyPatches ? { runEmptyPatch: true } : {}),
          ...(validationDir ? { validationDir } : {}),
          ...(options.onContainer
            ? { onContainer: (container: Docker.Container) => options.onContainer!(instance.instance_id, container) }
            : {}),
        }).catch((error: Error) => unexpected(out, options.runId, prediction, error)));
      outcomes.push(outcome);
      done += 1;
      options.onProgress?.({ kind: "instance", done, total: work.length, outcome, resumed: previous !== undefined });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 2, work.length)) }, worker));
  const summary = runSummary({
    datasetIds: options.instances.map((instance) => instance.instance_id),
    submittedIds: options.predictions.map((prediction) => prediction.instance_id),
    outcomes,
    runId: options.runId,
    harnessVersion: HARNESS_VERSION,
    images: options.images,
  });
  const model = options.predictions[0]?.model_name_or_path ?? "none";
  const path = summaryPath(out, options.runId, model);
  await mkdir(out, { recursive: true });
  await writeFile(path, `${JSON.stringify(summary, null, 4)}\n`);
  outcomes.sort((a, b) => (a.instance_id < b.instance_id ? -1 : 1));
  return { summary, summaryPath: path, outcomes };
}

/** An outcome already on disk for this run and the same patch, unless it was an infrastructure failure. */
async function resumable(out: string, runId: string, prediction: SwePrediction): Promise<InstanceOutcome | undefined> {
  const file = join(
    instanceDirectory(out, runId, prediction.model_name_or_path, prediction.instance_id),
    INSTANCE_FILES.outcome,
  );
  if (!existsSync(file)) return undefined;
  const parsed = InstanceOutcomeSchema.safeParse(JSON.parse(await readFile(file, "utf8").catch(() => "null")));
  if (!parsed.success) return undefined;
  if (parsed.data.status === "infra-failure" || parsed.data.patch_sha256 !== sha256(prediction.model_patch ?? ""))
    return undefined;
  return parsed.data;
}

/** An error no step expected (a bug, a file system error): the instance is an infrastructure failure, the run goes on. */
async function unexpected(
  out: string,
  runId: string,
  prediction: SwePrediction,
  error: Error,
): Promise<InstanceOutcome> {
  const outcome = InstanceOutcomeSchema.parse({
    instance_id: prediction.instance_id,
    model_name_or_path: prediction.model_name_or_path,
    run_id: runId,
    status: "infra-failure",
    infra_failure_reason: "eval-error",
    infra_failure_detail: error.message,
    patch_sha256: sha256(prediction.model_patch ?? ""),
    cached: false,
    started_at: new Date().toISOString(),
    duration_ms: 0,
    harness_version: HARNESS_VERSION,
  });
  const directory = instanceDirectory(out, runId, prediction.model_name_or_path, prediction.instance_id);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, INSTANCE_FILES.outcome), `${JSON.stringify(outcome, null, 2)}\n`);
  return outcome;
}
