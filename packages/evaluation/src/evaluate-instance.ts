import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type Docker from "dockerode";
import {
  evalScript,
  gradeLog,
  HARNESS_VERSION,
  testCommand,
  type HarnessSpec,
  type InstanceReport,
} from "@loclab/grading";
import { sha256 } from "./content-hash.js";
import type { EvaluationInstance, ImageSource } from "./image-source.js";
import { pythonFromLabels } from "./env-image.js";
import { InfraFailure } from "./infra-failure.js";
import { readValidation } from "./validation.js";
import { InstanceOutcomeSchema, type InstanceOutcome } from "./outcome.js";
import { INSTANCE_FILES, instanceDirectory } from "./run-layout.js";
import type { EvaluationLimits } from "./evaluation-limits.js";
import { runInstance } from "./run-instance.js";
import { writeFileAtomic } from "@loclab/schemas";

export interface EvaluateInstanceInput {
  instance: EvaluationInstance;
  spec: HarnessSpec;
  modelName: string;
  /** null is the harness's `patch_is_None`; "" is an empty patch. */
  modelPatch: string | null;
  runId: string;
  out: string;
  images: ImageSource;
  timeoutMs: number;
  memoryBytes?: number;
  /** The container's limits over DEFAULT_EVALUATION_LIMITS (`memoryBytes` and the spec's `nano_cpus` win over theirs). */
  limits?: Partial<EvaluationLimits>;
  /** Results kept by image digest + patch hash + eval script hash, across runs; none when undefined. */
  cacheDir?: string;
  /**
   * The agent's diff was over the patch limits (the note says how): nothing is run, the verdict
   * is `patch-too-large`, which the harness would count as unresolved.
   */
  patchOverLimit?: string;
  /** Run the tests even for an empty patch (calibration's base-commit run). */
  runEmptyPatch?: boolean;
  /** Where calibrations record validated images; a local image is looked up there (`image_validated`). */
  validationDir?: string;
  onContainer?: (container: Docker.Container) => void;
}

/**
 * One instance end to end: image, container, patch, eval script, test log, grade; the files a
 * harness user expects in the instance's folder, and outcome.json. A verdict is cached under
 * the image digest + patch + eval-script hashes; an infrastructure failure is never cached (the
 * next run tries again) and never written as "unresolved": its report.json carries the 5.x
 * harness's `infra_failure` / `infra_failure_reason` fields.
 */
export async function evaluateInstance(docker: Docker, input: EvaluateInstanceInput): Promise<InstanceOutcome> {
  const started = Date.now();
  const { instance } = input;
  const directory = instanceDirectory(input.out, input.runId, input.modelName, instance.instance_id);
  await mkdir(directory, { recursive: true });
  const patch = input.modelPatch ?? "";
  const base = {
    instance_id: instance.instance_id,
    model_name_or_path: input.modelName,
    run_id: input.runId,
    patch_sha256: sha256(patch),
    cached: false,
    started_at: new Date(started).toISOString(),
    harness_version: HARNESS_VERSION,
  };
  const finish = async (
    outcome: Omit<InstanceOutcome, "duration_ms">,
    report: InstanceReport | undefined,
  ): Promise<InstanceOutcome> => {
    const full = InstanceOutcomeSchema.parse({ ...outcome, duration_ms: Date.now() - started });
    if (report)
      await writeFileAtomic(
        join(directory, INSTANCE_FILES.report),
        `${JSON.stringify({ [instance.instance_id]: report }, null, 4)}\n`,
      );
    await writeFileAtomic(join(directory, INSTANCE_FILES.outcome), `${JSON.stringify(full, null, 2)}\n`);
    return full;
  };
  const failed = (failure: InfraFailure, fields: Omit<InstanceOutcome, "duration_ms" | "status">) =>
    finish(
      {
        ...fields,
        status: "infra-failure",
        infra_failure_reason: failure.reason,
        infra_failure_detail: failure.message,
      },
      infraReport(input.modelPatch, failure),
    );
  if (input.patchOverLimit !== undefined)
    return finish({ ...base, status: "patch-too-large", patch_over_limit: input.patchOverLimit }, undefined);
  if (patch === "" && !input.runEmptyPatch) {
    // The harness never runs an empty or None patch; it reports it as empty_patch.
    return finish({ ...base, status: "empty-patch" }, undefined);
  }
  await writeFile(join(directory, INSTANCE_FILES.patch), patch);
  let image;
  try {
    image = await input.images.imageFor(instance, input.spec);
  } catch (error) {
    const failure = asInfra(error);
    await writeFile(join(directory, INSTANCE_FILES.runLog), `${failure.message}\n`);
    return failed(failure, { ...base, ...(failure.python ? { python: failure.python } : {}) });
  }
  const script = evalScript({
    repo: instance.repo,
    baseCommit: instance.base_commit,
    testPatch: instance.test_patch ?? "",
    testCmd: testCommand(input.spec),
    activate: input.images.activate,
    ...(input.spec.eval_commands ? { evalCommands: input.spec.eval_commands } : {}),
    ...(input.spec.install ? { install: input.spec.install } : {}),
  });
  await writeFile(join(directory, INSTANCE_FILES.evalScript), script);
  const python = pythonFromLabels(image.labels);
  const validated =
    input.images.kind === "local" && input.validationDir
      ? (await readValidation(input.validationDir, image.id))?.validated === true
      : undefined;
  const withImage = {
    ...base,
    image: { name: image.name, id: image.id },
    ...(python ? { python } : {}),
    ...(validated !== undefined ? { image_validated: validated } : {}),
    eval_script_sha256: sha256(script),
  };
  const cacheKey = sha256(
    [image.id, withImage.patch_sha256, withImage.eval_script_sha256, input.runEmptyPatch ? "run-empty" : ""].join("\n"),
  );
  const cached = input.cacheDir ? join(input.cacheDir, cacheKey.slice(0, 2), cacheKey) : undefined;
  if (cached && existsSync(join(cached, INSTANCE_FILES.outcome))) {
    const previous = InstanceOutcomeSchema.parse(
      JSON.parse(await readFile(join(cached, INSTANCE_FILES.outcome), "utf8")),
    );
    for (const file of [INSTANCE_FILES.testOutput, INSTANCE_FILES.runLog])
      if (existsSync(join(cached, file))) await cp(join(cached, file), join(directory, file));
    const report = existsSync(join(cached, INSTANCE_FILES.report))
      ? (JSON.parse(await readFile(join(cached, INSTANCE_FILES.report), "utf8")) as Record<string, InstanceReport>)[
          instance.instance_id
        ]
      : undefined;
    const { duration_ms: _ignored, ...kept } = previous;
    void _ignored;
    return finish(
      { ...kept, ...withImage, cached: true, model_name_or_path: input.modelName, run_id: input.runId },
      report,
    );
  }
  let run;
  try {
    run = await runInstance(docker, {
      image,
      instanceId: instance.instance_id,
      runId: input.runId,
      modelPatch: patch,
      evalScript: script,
      timeoutMs: input.timeoutMs,
      ...(input.memoryBytes
        ? { memoryBytes: input.memoryBytes }
        : input.limits?.memoryMiB
          ? { memoryBytes: input.limits.memoryMiB * 2 ** 20 }
          : {}),
      ...(input.spec.nano_cpus
        ? { nanoCpus: input.spec.nano_cpus }
        : input.limits?.cpus
          ? { nanoCpus: Math.round(input.limits.cpus * 1e9) }
          : {}),
      ...(input.limits?.processes ? { processes: input.limits.processes } : {}),
      ...(input.limits?.logBytes ? { logBytes: input.limits.logBytes } : {}),
      ...(input.onContainer ? { onContainer: input.onContainer } : {}),
      testOutputPath: join(directory, INSTANCE_FILES.testOutput),
    });
  } catch (error) {
    const failure = asInfra(error, "daemon-error");
    await writeFile(join(directory, INSTANCE_FILES.runLog), `${failure.message}\n`);
    return failed(failure, withImage);
  }
  const runLog = [
    `instance ${instance.instance_id}, run ${input.runId}, image ${image.name} (${image.id}), container ${run.containerName}`,
    ...run.standins.map((line) => `network stand-in: ${line}`),
    ...(run.infra?.reason === "network-standin-failed" ? [run.infra.message] : []),
    run.apply?.log ?? (patch === "" ? "(empty patch: tests run on the base commit)\n" : ""),
    `git diff before the eval script:\n${run.diffBefore}`,
    `git diff after the eval script:\n${run.diffAfter}`,
  ].join("\n");
  await writeFile(join(directory, INSTANCE_FILES.runLog), runLog);
  // test_output.txt was written by the run as the log came.
  const exitCode = testExitCode(run.testOutput);
  // The run's own verdict on the infrastructure (timeout, killed, OOM), or exit 137 under a memory limit.
  const infra =
    run.infra ??
    (exitCode === 137 && input.memoryBytes
      ? new InfraFailure(
          "oom-killed",
          `the test command was killed (exit 137) under a ${input.memoryBytes}-byte memory limit`,
        )
      : undefined);
  if (infra) return failed(infra, { ...withImage, ...(exitCode !== undefined ? { test_exit_code: exitCode } : {}) });
  if (run.logOverLimit !== undefined) {
    // A verdict on the patch, like the harness's unresolved: the same patch floods the same way again.
    const report: InstanceReport = {
      patch_is_None: input.modelPatch === null,
      patch_exists: input.modelPatch !== null,
      patch_successfully_applied: run.apply?.applied ?? true,
      resolved: false,
    };
    const done = await finish({ ...withImage, status: "log-over-limit", log_over_limit: run.logOverLimit }, report);
    await store(cached, directory, done);
    return done;
  }
  if (run.apply && !run.apply.applied) {
    const report: InstanceReport = {
      patch_is_None: input.modelPatch === null,
      patch_exists: input.modelPatch !== null,
      patch_successfully_applied: false,
      resolved: false,
    };
    const done = await finish({ ...withImage, status: "patch-apply-failed" }, report);
    await store(cached, directory, done);
    return done;
  }
  const grade = gradeLog({
    repo: instance.repo,
    ...(input.spec.parser ? { parser: input.spec.parser } : {}),
    modelPatch: input.modelPatch,
    log: run.testOutput,
    FAIL_TO_PASS: instance.FAIL_TO_PASS ?? [],
    PASS_TO_PASS: instance.PASS_TO_PASS ?? [],
  });
  const outcome = {
    ...withImage,
    status: grade.report.resolved ? ("resolved" as const) : ("unresolved" as const),
    ...(grade.resolution ? { resolution: grade.resolution } : {}),
    ...(run.apply?.command ? { apply_command: run.apply.command } : {}),
    test_exit_code: exitCode ?? null,
  };
  const done = await finish(outcome, grade.report);
  await store(cached, directory, done);
  return done;
}

/** The 5.x harness's report.json entry for an instance whose run failed for infrastructure reasons. */
function infraReport(
  modelPatch: string | null,
  failure: InfraFailure,
): InstanceReport & { infra_failure: true; infra_failure_reason: string } {
  return {
    patch_is_None: modelPatch === null,
    patch_exists: modelPatch !== null,
    patch_successfully_applied: false,
    resolved: false,
    infra_failure: true,
    infra_failure_reason: `${failure.reason}: ${failure.message}`,
  };
}

function asInfra(error: unknown, fallback: InfraFailure["reason"] = "eval-error"): InfraFailure {
  if (error instanceof InfraFailure) return error;
  return new InfraFailure(fallback, (error as Error).message ?? String(error));
}

/** The `>>>>> Test Exit Code: N` line loclab's eval script prints after the end marker. */
export function testExitCode(log: string): number | undefined {
  const match = /^>>>>> Test Exit Code: (\d+)$/m.exec(log);
  return match ? Number(match[1]) : undefined;
}

/**
 * Keeps a verdict in the result cache, best effort (the cache only saves time: a failure to
 * store never changes the verdict). The first verdict stored under a key stays: two evaluations
 * of the same image, patch and script at once (a repair run's cells often make the same patch)
 * each stage their own copy, and the one that loses the rename drops its copy.
 */
async function store(cached: string | undefined, directory: string, outcome: InstanceOutcome): Promise<void> {
  if (!cached || existsSync(cached)) return;
  const staging = `${cached}.tmp-${process.pid}-${randomUUID()}`;
  try {
    await mkdir(staging, { recursive: true });
    for (const file of [INSTANCE_FILES.testOutput, INSTANCE_FILES.runLog, INSTANCE_FILES.report])
      if (existsSync(join(directory, file))) await cp(join(directory, file), join(staging, file));
    await writeFile(join(staging, INSTANCE_FILES.outcome), `${JSON.stringify(outcome, null, 2)}\n`);
    await rename(staging, cached);
  } catch {
    // Another evaluation stored this key first (ENOTEMPTY, EEXIST), or the cache is not writable.
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
