import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { calibrateInstance, harnessSpec, logsEval, type InstanceCalibration, type StatusMap } from "@loclab/grading";
import { evaluatePredictions, type EvaluatePredictionsOptions } from "./evaluate-predictions.js";
import type { EvaluationInstance } from "./image-source.js";
import type { InstanceOutcome } from "./outcome.js";
import { INSTANCE_FILES, instanceDirectory } from "./run-layout.js";

export interface CalibrateOptions
  extends Omit<EvaluatePredictionsOptions, "predictions" | "runId" | "runEmptyPatches" | "cacheDir"> {
  /** The instances to calibrate (their gold patches are run). */
  calibrate: readonly EvaluationInstance[];
  runId: string;
  /** Gold runs per instance; default 3. */
  goldRuns?: number;
}

export interface CalibrationEntry extends InstanceCalibration {
  gold: InstanceOutcome["status"][];
  empty: InstanceOutcome["status"] | undefined;
}

export interface CalibrationResult {
  path: string;
  instances: Record<string, CalibrationEntry>;
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
  for (const instance of chosen) {
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
    };
  }
  const path = join(out, `calibration.${options.runId}.json`);
  await writeFile(path, `${JSON.stringify({ run_id: options.runId, gold_runs: runs, instances }, null, 2)}\n`);
  return { path, instances };
}
