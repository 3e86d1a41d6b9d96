import { type Prediction, PredictionSchema, SCHEMA_VERSION, type SchemaVersion, versionedRecordSchema } from "@loclab/schemas";
import { z } from "zod";
import { collectPredictions } from "./collect-predictions.js";
import type { ReadPredictionsOptions, ReadPredictionsResult } from "./read-types.js";

/** `PredictionSchema` plus `schemaVersion`. */
const VersionedPredictionSchema: z.ZodType<Prediction & { schemaVersion: SchemaVersion }, unknown> = versionedRecordSchema(PredictionSchema);

/**
 * One line of a loclab predictions file: a `Prediction` stamped with `schemaVersion`
 * (`stampRecord`). A line without `schemaVersion` gets its own message, since the likely cause
 * is a file from another tool or written by hand, not a damaged loclab file.
 */
export const LoclabPredictionLineSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value) && !("schemaVersion" in value)) {
      ctx.addIssue({
        code: "custom",
        path: ["schemaVersion"],
        message: `missing: every line of a loclab predictions file carries "schemaVersion": ${SCHEMA_VERSION} (written by stampRecord); for another tool's output choose its format (locagent, agentless, blagent)`,
      });
    }
  })
  .pipe(VersionedPredictionSchema);

/**
 * Reads loclab's own predictions JSONL (what loclab's localizers write). `schemaVersion` is
 * required on every line: artifacts written by loclab carry it (style.md, habit 4), and a
 * reader that guessed the version of an unstamped line could misread a later shape. Each line
 * is validated by `PredictionSchema` (so a span with start > end or a non-positive line names
 * file, line and instance), then normalized and de-duplicated like the peers' formats.
 *
 * @example const { predictions } = await readLoclabPredictions("results/run-1/predictions.jsonl", { instanceIds });
 */
export function readLoclabPredictions(file: string, options: ReadPredictionsOptions = {}): Promise<ReadPredictionsResult> {
  return collectPredictions(
    {
      file,
      format: "loclab",
      schema: LoclabPredictionLineSchema,
      toRaw: ({ schemaVersion: _version, ...prediction }) => prediction,
    },
    options,
  );
}
