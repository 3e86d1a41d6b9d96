import { type Location, SherlocOutputRowSchema, parseSherlocFindings } from "@loclab/schemas";
import { collectPredictions } from "./collect-predictions.js";
import type { ReadPredictionsOptions, ReadPredictionsResult } from "./read-types.js";

/**
 * Reads SHERLOC's generation JSONL (NVIDIA-NeMo/Skills, `recipes/sherloc`): per line
 * `instance_id`, `status`, `reason`, `locations` (`{file_path, start_line, end_line, raw}`
 * or `{raw}`; null unless success) and `findings` (the `<findings>` text). A `null` line
 * (SHERLOC's evaluator keeps one where a line was null) is passed over and counted.
 *
 * - `sherlocLocations` keeps the locations exactly as written, for the `sherloc` preset
 *   (which must see what SHERLOC's evaluator sees: paths unnormalized, `{raw}` lines, `L0`);
 * - `locations` holds the entries with a usable range (1 ≤ start ≤ end), paths normalized,
 *   and `files` their distinct files in order, for loclab's own metrics; the rest are counted
 *   in `report.locationsWithoutRange`;
 * - `finding` is read from the `<findings>` text when it carries all five labelled fields;
 * - `status` and `reason` are kept: the `sherloc` preset scores a generation that is not a
 *   `success` as 0, as SHERLOC does, while the unified preset scores whatever it located.
 *
 * @example const { predictions } = await readSherlocPredictions("output.jsonl", { instanceIds });
 */
export async function readSherlocPredictions(
  file: string,
  options: ReadPredictionsOptions = {},
): Promise<ReadPredictionsResult> {
  const result = await collectPredictions(
    {
      file,
      format: "sherloc",
      schema: SherlocOutputRowSchema.nullable(),
      toRaw: (row) => {
        if (row === null) return undefined;
        const written = row.locations ?? [];
        const locations: Location[] = [];
        const files: string[] = [];
        for (const entry of written) {
          if (entry.file_path === undefined) continue;
          if (!files.includes(entry.file_path)) files.push(entry.file_path);
          const { start_line: start, end_line: end } = entry;
          if (start !== undefined && end !== undefined && start >= 1 && start <= end)
            locations.push({ path: entry.file_path, startLine: start, endLine: end, role: "edit" });
        }
        const finding = parseSherlocFindings(row.findings);
        return {
          instanceId: row.instance_id,
          files,
          locations,
          status: row.status,
          reason: row.reason ?? null,
          sherlocLocations: written,
          ...(finding ? { finding } : {}),
        };
      },
    },
    options,
  );
  result.report.locationsWithoutRange = result.predictions.reduce(
    (sum, prediction) => sum + (prediction.sherlocLocations?.length ?? 0) - prediction.locations.length,
    0,
  );
  return result;
}
