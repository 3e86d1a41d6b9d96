import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SwePrediction } from "@loclab/evaluation";
import { isFinalOutcome, readRunFolder, recordCell } from "@loclab/schemas";

/**
 * SWE-bench predictions of a repair run (`instance_id`, `model_name_or_path`, `model_patch`),
 * one per key done, read from the final patches beside the trajectories: the official harness
 * grades them as they are. `model_name_or_path` is `<model>__<cell>` (the cell's slashes as
 * `__`), so that every cell is a system of its own in the harness's logs; `cell` takes one.
 */
export async function repairPredictions(dir: string, options: { cell?: string } = {}): Promise<SwePrediction[]> {
  return (await repairExport(dir, options)).predictions;
}

/** A key `run export` leaves out: its final patch met the patch limits and was never stored whole. */
export interface LeftOutKey {
  instanceId: string;
  cell: string;
  /** The record's note: the diff's size, or the binary files over their limit. */
  note: string;
}

export interface RepairExport {
  predictions: SwePrediction[];
  /**
   * Keys done whose patch is not exported: `patch-too-large` (what is stored is empty, and an
   * empty model_patch would read as the harness's empty patch, a different verdict).
   */
  leftOut: LeftOutKey[];
}

/** repairPredictions, with the keys it leaves out and why (`loclab run export` prints them). */
export async function repairExport(dir: string, options: { cell?: string } = {}): Promise<RepairExport> {
  const folder = await readRunFolder(dir);
  const predictions: SwePrediction[] = [];
  const leftOut: LeftOutKey[] = [];
  for (const record of folder.records) {
    if (!isFinalOutcome(record.outcome) || !record.repair) continue;
    const cell = recordCell(record);
    if (options.cell !== undefined && cell !== options.cell) continue;
    const over = record.repair.patch.overLimit;
    if (over) {
      leftOut.push({ instanceId: record.instanceId, cell, note: over.note });
      continue;
    }
    predictions.push({
      instance_id: record.instanceId,
      model_name_or_path: `${record.endpoint?.model ?? "model"}__${cell.replaceAll("/", "__")}`,
      model_patch: await readFile(join(dir, record.repair.patch.path), "utf8"),
    });
  }
  return { predictions, leftOut };
}
