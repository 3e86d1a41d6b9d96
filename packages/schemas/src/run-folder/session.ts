import { z } from "zod";
import { ARTIFACT_KINDS } from "../artifact-kinds.js";
import { SCHEMA_VERSION } from "../version.js";
import { RunEndpointFactsSchema, RunEnvironmentSchema } from "./manifest.js";

/**
 * One line of `sessions.jsonl`: a start or a resume of a run, with the spec that session ran
 * (its endpoints, retries and run budget may differ from the first; `loclab run --resume`
 * continues with the last one). Layout-1 lines (loclab 0.1.0) have no `kind` and
 * `schemaVersion`; they are read the same.
 */
export const RunSessionSchema = z.strictObject({
  kind: z.literal(ARTIFACT_KINDS.runSession).optional(),
  schemaVersion: z.literal(SCHEMA_VERSION).optional(),
  startedAt: z.string(),
  pid: z.number().int(),
  host: z.string(),
  resumed: z.boolean(),
  command: z.string().nullable(),
  spec: z.record(z.string(), z.unknown()),
  endpoints: z.array(RunEndpointFactsSchema),
  ...RunEnvironmentSchema.shape,
});
export type RunSession = z.infer<typeof RunSessionSchema>;

/** A session line as this loclab writes it (kind and version stamped). */
export function runSessionLine(session: Omit<RunSession, "kind" | "schemaVersion">): RunSession {
  return RunSessionSchema.parse({ kind: ARTIFACT_KINDS.runSession, schemaVersion: SCHEMA_VERSION, ...session });
}
