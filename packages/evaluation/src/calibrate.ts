import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { calibrateInstance, harnessSpec, logsEval, type InstanceCalibration, type StatusMap } from "@loclab/grading";
import { evaluatePredictions, type EvaluatePredictionsOptions } from "./evaluate-predictions.js";
import type { EvaluationInstance } from "./image-source.js";
import type { InstanceOutcome } from "./outcome.js";
import { describePythonChoice } from "./python-choice.js";
import { INSTANCE_FILES, instanceDirectory } from "./run-layout.js";
import {
  defaultValidationDir,
  isValidated,
  recordValidation,
  type ValidationInput,
  type ValidationRow,
  validationTable,
} from "./validation.js";

export interface CalibrateOptions
  extends Omit<EvaluatePredictionsOptions, "predictions" | "runId" | "runEmptyPatches" | "cacheDir"> {
  /** The instances to calibrate (their gold patches are run). */
  calibrate: readonly EvaluationInstance[];
  runId: string;
  /** Gold runs per instance; default 3. */
  goldRuns?: number;
  /** Where each instance image's validation is recorded; default ~/.cache/loclab/validations; false for nowhere. */
  validationDir?: string | false;
}

export interface CalibrationEntry extends InstanceCalibration {
  gold: InstanceOutcome["status"][];
  empty: InstanceOutcome["status"] | undefined;
  /** Every gold run resolved, the empty patch did not, nothing failed for the infrastructure. */
  validated: boolean;
  /** The first infrastructure failure of the instance's runs, named. */
  infra_failure?: { reason: string; detail: string };
}

export interface CalibrationResult {
  path: string;
  instances: Record<string, CalibrationEntry>;
  /** Per repository × version: built, gold resolved, empty resolved, flaky, infrastructure failures, validated. */
  table: ValidationRow[];
}

/**
 * Calibration: on each instance image, the gold patch `goldRuns` times and the empty patch once
 * (the tests on the base commit), never from the result cache; then, per instance, the tests
 * whose verdict flips between gold runs (flaky), those gold never passes, and the FAIL_TO_PASS
 * tests that pass without the fix. Written to `<out>/calibration.<run_id>.json`, which
 * `withoutFlaky` turns into gold lists a comparison can use.
 */
export async function calibrate(options: CalibrateOptions): Promise<CalibrationResult> {
  const out = resolve(options.out ?? ".");
  const runs = options.goldRuns ?? 3;
  const { calibrate: chosen, goldRuns: _runs, ...common } = options;
  void _runs;
  const goldRunIds = Array.from({ length: runs }, (_, index) => `${options.runId}.gold-${index + 1}`);
  const gold = chosen.map((instance) => ({
    instance_id: instance.instance_id,
    model_name_or_path: "gold",
    model_patch: instance.patch,
  }));
  const goldResults = [];
  for (const runId of goldRunIds)
    goldResults.push(await evaluatePredictions({ ...common, out, runId, predictions: gold, cacheDir: false }));
  const emptyRunId = `${options.runId}.empty`;
  const emptyResult = await evaluatePredictions({
    ...common,
    out,
    runId: emptyRunId,
    predictions: chosen.map((instance) => ({
      instance_id: instance.instance_id,
      model_name_or_path: "empty",
      model_patch: "",
    })),
    cacheDir: false,
    runEmptyPatches: true,
  });
  const parsed = async (runId: string, model: string, instance: EvaluationInstance): Promise<StatusMap | undefined> => {
    const file = join(instanceDirectory(out, runId, model, instance.instance_id), INSTANCE_FILES.testOutput);
    if (!existsSync(file)) return undefined;
    const spec = harnessSpec(instance.repo, instance.version, options.specs ?? {});
    const evaluated = logsEval(instance.repo, await readFile(file, "utf8"), spec.parser ? { parser: spec.parser } : {});
    return evaluated.found ? evaluated.statusMap : undefined;
  };
  const instances: Record<string, CalibrationEntry> = {};
  const inputs: ValidationInput[] = [];
  const validationDir = options.validationDir === false ? undefined : (options.validationDir ?? defaultValidationDir());
  for (const instance of chosen) {
    const outcomes = [...goldResults, emptyResult].flatMap((result) =>
      result.outcomes.filter((outcome) => outcome.instance_id === instance.instance_id),
    );
    const infra = outcomes.find((outcome) => outcome.status === "infra-failure");
    const python = outcomes.find((outcome) => outcome.python)?.python;
    const maps = (await Promise.all(goldRunIds.map((runId) => parsed(runId, "gold", instance)))).filter(
      (map): map is StatusMap => map !== undefined,
    );
    const empty = await parsed(emptyRunId, "empty", instance);
    instances[instance.instance_id] = {
      ...calibrateInstance({
        gold: maps,
        empty,
        FAIL_TO_PASS: instance.FAIL_TO_PASS ?? [],
        PASS_TO_PASS: instance.PASS_TO_PASS ?? [],
      }),
      gold: goldResults.map(
        (result) =>
          result.outcomes.find((outcome) => outcome.instance_id === instance.instance_id)?.status ?? "infra-failure",
      ),
      empty: emptyResult.outcomes.find((outcome) => outcome.instance_id === instance.instance_id)?.status,
      validated: false,
      ...(infra
        ? {
            infra_failure: {
              reason: infra.infra_failure_reason ?? "eval-error",
              detail: infra.infra_failure_detail ?? "",
            },
          }
        : {}),
    };
    const entry = instances[instance.instance_id]!;
    entry.validated = !infra && isValidated(entry);
    const input: ValidationInput = {
      instance_id: instance.instance_id,
      repo: instance.repo,
      version: instance.version ?? "",
      python: python
        ? describePythonChoice({ python: python.actual, requested: python.requested, rule: python.rule })
        : undefined,
      gold: entry.gold,
      empty: entry.empty,
      flaky: entry.flaky,
      infraReason: infra?.infra_failure_reason,
    };
    inputs.push(input);
    // Recorded by the instance image's id, for `loclab evaluate` to warn about unvalidated images.
    const image = outcomes.find((outcome) => outcome.image)?.image;
    if (validationDir && image && !infra)
      await recordValidation(validationDir, {
        image_id: image.id,
        image_name: image.name,
        instance_id: instance.instance_id,
        repo: input.repo,
        version: input.version,
        ...(input.python ? { python: input.python } : {}),
        gold: entry.gold,
        ...(entry.empty ? { empty: entry.empty } : {}),
        flaky: entry.flaky,
        validated: entry.validated,
        run_id: options.runId,
        at: new Date().toISOString(),
      });
  }
  const table = validationTable(inputs);
  const path = join(out, `calibration.${options.runId}.json`);
  await writeFile(path, `${JSON.stringify({ run_id: options.runId, gold_runs: runs, table, instances }, null, 2)}\n`);
  return { path, instances, table };
}
