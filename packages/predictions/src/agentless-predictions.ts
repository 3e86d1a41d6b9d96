import { z } from "zod";
import { collectPredictions } from "./collect-predictions.js";
import type { ReadPredictionsOptions, ReadPredictionsResult } from "./read-types.js";
import { parseRelatedLocs } from "./related-locs.js";

const RelatedLocsSchema = z.union([z.record(z.string(), z.array(z.string())), z.array(z.array(z.string()))]);

/**
 * One row of an Agentless-format localization file (Agentless, and CoSIL's runs of AFL,
 * LocAgent, OrcaLoca and Agentless). Loose: rows carry raw model output and more
 * (`additional_artifact_loc_file`, `found_edit_locs`), which loclab does not read.
 * `found_related_locs` is absent from file-level runs. Spans are checked here, so a malformed
 * `line:` entry is a bad line naming file, line and instance.
 */
export const AgentlessRowSchema = z
  .looseObject({
    instance_id: z.string().min(1),
    found_files: z.array(z.string()),
    found_related_locs: RelatedLocsSchema.optional(),
  })
  .transform((row, ctx) => {
    const related = row.found_related_locs
      ? parseRelatedLocs(row.found_related_locs, { files: row.found_files })
      : undefined;
    for (const problem of related?.problems ?? [])
      ctx.addIssue({ code: "custom", message: problem, path: ["found_related_locs"] });
    return { instanceId: row.instance_id, files: row.found_files, related };
  });

/**
 * Reads an Agentless / CoSIL localization file: `found_files` is the file ranking;
 * `found_related_locs` gives `functions` (`path:Name` from its `function:` and `class:` lines,
 * in order, de-duplicated: docs/definitions.md §3, CoSIL preset) and `locations` (its `line:` lines, as
 * edit spans). A row without `found_related_locs` (a file-level run) has no `functions`.
 * Other kinds of line (`variable:`) are counted in `report.ignoredLocKinds`.
 *
 * @example const { predictions, report } = await readAgentlessPredictions("afl-loc-qwen-coder-32b-func.jsonl", { instanceIds });
 */
export function readAgentlessPredictions(
  file: string,
  options: ReadPredictionsOptions = {},
): Promise<ReadPredictionsResult> {
  return collectPredictions(
    {
      file,
      format: "agentless",
      schema: AgentlessRowSchema,
      toRaw: (row) => ({
        instanceId: row.instanceId,
        files: row.files,
        ...(row.related
          ? {
              functions: row.related.symbols.map(({ path, name }) => ({ path, name })),
              locations: row.related.locations,
              ignoredLocKinds: row.related.ignored,
            }
          : {}),
      }),
    },
    options,
  );
}
