import { streamJsonl } from "@loclab/schemas";
import { z } from "zod";
import { GtFileChangeSchema } from "./locagent-predictions.js";

/** The part of a LocAgent row its gold comes from; here `gt_file_changes` is required. */
const LocAgentGoldRowSchema = z.looseObject({
  instance_id: z.string().min(1),
  meta_data: z.looseObject({ gt_file_changes: z.array(GtFileChangeSchema) }),
});

/** LocAgent's gold for one instance, at its three levels. */
export interface LocAgentGold {
  /** `gt_file_changes[].file`, in order. */
  files: string[];
  /** `changes.edited_modules` of every file, concatenated in order (`path:TopLevelName`). */
  modules: string[];
  /** `changes.edited_entities` of every file, concatenated in order (`path:Class.method`). */
  functions: string[];
}

/**
 * LocAgent's own gold, read from `meta_data.gt_file_changes` of its output file: the gold its
 * preset scores against (docs/definitions.md §3: "gold from the file's own `gt_file_changes`").
 *
 * Lists are kept exactly as LocAgent builds them in `load_gt_dict` (utils/eval_metric.py):
 * edited (not added) modules and entities, in order, duplicates included. LocAgent's acc@k
 * and recall@k count `len(gt)`, so a module listed twice (a class edited in two places: 24
 * Lite instances in claude35-lite.jsonl) changes its published numbers; the unified metrics
 * treat gold as a set and de-duplicate themselves. A file whose changes name no edited module
 * (only added ones, or none) is a gold file with no modules or functions. A row without
 * `meta_data.gt_file_changes` is a bad line, not empty gold (which the metrics would quietly
 * exclude). A repeated instance id keeps its first line, as the prediction readers do. A bad
 * line throws a `JsonlLineError` naming file:line.
 *
 * @example (await readLocAgentGold("claude35-lite.jsonl")).get("django__django-14787")?.functions
 */
export async function readLocAgentGold(file: string): Promise<Map<string, LocAgentGold>> {
  const gold = new Map<string, LocAgentGold>();
  for await (const { value } of streamJsonl(file, { schema: LocAgentGoldRowSchema })) {
    if (gold.has(value.instance_id)) continue;
    const changes = value.meta_data.gt_file_changes;
    gold.set(value.instance_id, {
      files: changes.map((change) => change.file),
      modules: changes.flatMap((change) => change.changes.edited_modules ?? []),
      functions: changes.flatMap((change) => change.changes.edited_entities ?? []),
    });
  }
  return gold;
}
