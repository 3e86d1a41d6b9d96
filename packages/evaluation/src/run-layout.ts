import { join } from "node:path";
import { modelDirectoryName } from "./predictions-file.js";

/**
 * The harness's layout, so a SWE-bench user finds everything where they expect it:
 * `<out>/logs/run_evaluation/<run_id>/<model>/<instance_id>/{report.json, test_output.txt,
 * patch.diff, run_instance.log, eval.sh}` (plus loclab's outcome.json), and the run summary
 * `<out>/<model>.<run_id>.json`.
 */
export function instanceDirectory(out: string, runId: string, model: string, instanceId: string): string {
  return join(out, "logs", "run_evaluation", runId, modelDirectoryName(model), instanceId);
}

export function summaryPath(out: string, runId: string, model: string): string {
  return join(out, `${modelDirectoryName(model)}.${runId}.json`);
}

export const INSTANCE_FILES = {
  report: "report.json",
  testOutput: "test_output.txt",
  patch: "patch.diff",
  runLog: "run_instance.log",
  evalScript: "eval.sh",
  outcome: "outcome.json",
} as const;
