import { z } from "zod";
import { collectPredictions } from "./collect-predictions.js";
import type { ReadPredictionsOptions, ReadPredictionsResult } from "./read-types.js";

/**
 * One row of BLAgent's results as kept in the data folder: `ranked_files` (best first), its
 * gold `gold_file_first` (the first file of the gold diff), `swe_data_index` (row of the
 * official split) and `instance_id`, which the data folder added by row order (BLAgent's
 * own files have none).
 */
export const BlagentRowSchema = z.looseObject({
  instance_id: z.string().min(1),
  ranked_files: z.array(z.string()),
  gold_file_first: z.string().optional(),
  swe_data_index: z.number().int().nonnegative().optional(),
});

/**
 * Reads BLAgent's ranked file lists: `ranked_files` → files. BLAgent ranks files only, so the
 * predictions have no modules, functions or locations. Its rankings may repeat a file
 * (53 of 300 rows of rag-code-chunking-lite.jsonl): the first occurrence is kept, and
 * `report.duplicatesRemoved` counts the rest.
 *
 * @example const { predictions } = await readBlagentPredictions("claude-4-6-lite.jsonl");
 */
export function readBlagentPredictions(
  file: string,
  options: ReadPredictionsOptions = {},
): Promise<ReadPredictionsResult> {
  return collectPredictions(
    {
      file,
      format: "blagent",
      schema: BlagentRowSchema,
      toRaw: (row) => ({ instanceId: row.instance_id, files: row.ranked_files }),
    },
    options,
  );
}
