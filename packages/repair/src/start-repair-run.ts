import { type RunOptions, type RunSpec, type RunSummary, resumeRun, startRun } from "@loclab/runner";
import { type RepairRunKindOptions, repairRunKind } from "./repair-kind.js";

/** `startRun` with the repair run kind (the runner's exactly-once ledger, resumable, over the pool). */
export function startRepairRun(
  spec: RunSpec,
  options: RunOptions & { repair?: RepairRunKindOptions } = {},
): Promise<RunSummary> {
  const { repair, ...rest } = options;
  return startRun(spec, { ...rest, repairKind: repairRunKind(repair) });
}

/** `resumeRun` with the repair run kind: the keys of the folder that have no final outcome yet. */
export function resumeRepairRun(
  dir: string,
  options: RunOptions & { repair?: RepairRunKindOptions } = {},
): Promise<RunSummary> {
  const { repair, ...rest } = options;
  return resumeRun(dir, { ...rest, repairKind: repairRunKind(repair) });
}
