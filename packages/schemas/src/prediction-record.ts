import { z } from "zod";
import { versionedRecordSchema } from "./artifact.js";
import { type Prediction, PredictionSchema } from "./prediction.js";
import { SCHEMA_VERSION, type SchemaVersion } from "./version.js";

/** `PredictionSchema` plus `schemaVersion`: what `stampRecord(prediction)` produces. */
const VersionedPredictionSchema: z.ZodType<Prediction & { schemaVersion: SchemaVersion }, unknown> =
  versionedRecordSchema(PredictionSchema);

/**
 * One line of a loclab predictions file (`predictions.jsonl`): a `Prediction` stamped with
 * `schemaVersion`. Runs append these; the predictions package reads them. A line without
 * `schemaVersion` gets its own message, since the likely cause is a file from another tool or
 * written by hand, not a damaged loclab file.
 */
export const PredictionRecordSchema = z
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
export type PredictionRecord = z.output<typeof PredictionRecordSchema>;
