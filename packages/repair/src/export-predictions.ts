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
  const folder = await readRunFolder(dir);
  const predictions: SwePrediction[] = [];
  for (const record of folder.records) {
    if (!isFinalOutcome(record.outcome) || !record.repair) continue;
    const cell = recordCell(record);
    if (options.cell !== undefined && cell !== options.cell) continue;
    predictions.push({
      instance_id: record.instanceId,
      model_name_or_path: `${record.endpoint?.model ?? "model"}__${cell.replaceAll("/", "__")}`,
      model_patch: await readFile(join(dir, record.repair.patch.path), "utf8"),
    });
  }
  return predictions;
}
