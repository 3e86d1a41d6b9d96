import { z } from "zod";
import { collectPredictions } from "./collect-predictions.js";
import type { ReadPredictionsOptions, ReadPredictionsResult } from "./read-types.js";

/** One file's entry of LocAgent's own gold: the file and the modules / entities the patch edits (or adds). */
export const GtFileChangeSchema = z.looseObject({
  file: z.string(),
  changes: z.looseObject({
    edited_modules: z.array(z.string()).optional(),
    edited_entities: z.array(z.string()).optional(),
    added_modules: z.array(z.string()).optional(),
    added_entities: z.array(z.string()).optional(),
  }),
});

/**
 * One row of LocAgent's `loc_outputs.jsonl`: the rankings (`found_files`, `found_modules` as
 * `path:TopLevelName`, `found_entities` as `path:Class.method`) and `meta_data` with the
 * repository and LocAgent's own gold (`gt_file_changes`). Loose: rows also carry the raw
 * model output and the problem statement.
 */
export const LocAgentRowSchema = z.looseObject({
  instance_id: z.string().min(1),
  found_files: z.array(z.string()),
  found_modules: z.array(z.string()).optional(),
  found_entities: z.array(z.string()).optional(),
  meta_data: z
    .looseObject({
      repo: z.string().optional(),
      gt_file_changes: z.array(GtFileChangeSchema).optional(),
    })
    .optional(),
});
export type LocAgentRow = z.output<typeof LocAgentRowSchema>;

/**
 * Reads LocAgent's output: `found_files` → files, `found_modules` → modules,
 * `found_entities` → functions (entities as written, only their path normalized: LocAgent's
 * preset compares entities as strings, docs/definitions.md §3). The row's `meta_data.repo` serves for
 * path normalization when `repoOf` gives no repository.
 *
 * @example const { predictions } = await readLocAgentPredictions("claude35-lite.jsonl");
 */
export function readLocAgentPredictions(
  file: string,
  options: ReadPredictionsOptions = {},
): Promise<ReadPredictionsResult> {
  return collectPredictions(
    {
      file,
      format: "locagent",
      schema: LocAgentRowSchema,
      toRaw: (row) => ({
        instanceId: row.instance_id,
        files: row.found_files,
        ...(row.found_modules ? { modules: row.found_modules } : {}),
        ...(row.found_entities ? { functions: row.found_entities } : {}),
        ...(row.meta_data?.repo ? { repo: row.meta_data.repo } : {}),
      }),
    },
    options,
  );
}
