import { streamJsonl } from "@loclab/schemas";
import { z } from "zod";

const BlagentGoldRowSchema = z.looseObject({
  instance_id: z.string().min(1),
  gold_file_first: z.string().min(1),
});

/**
 * BLAgent's gold: one file per instance, the first file of the gold diff (`gold_file_first`),
 * which its preset scores against with N = 300 (docs/definitions.md §3). A row without it is a bad line
 * (a `JsonlLineError` naming file:line); a repeated instance id keeps its first line.
 *
 * @example (await readBlagentGold("claude-4-6-lite.jsonl")).get("astropy__astropy-12907") // "astropy/modeling/separable.py"
 */
export async function readBlagentGold(file: string): Promise<Map<string, string>> {
  const gold = new Map<string, string>();
  for await (const { value } of streamJsonl(file, { schema: BlagentGoldRowSchema })) {
    if (!gold.has(value.instance_id)) gold.set(value.instance_id, value.gold_file_first);
  }
  return gold;
}
