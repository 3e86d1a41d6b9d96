import { z } from "zod";
import { SCHEMA_VERSION } from "./version.js";

/**
 * Where an artifact came from: the tool and its version, the git revision of the workbench,
 * and free-form inputs (benchmark file, seed, model config). The log is the contract
 * (docs/architecture.md): analysis reads only what runs wrote, so a file must say how it was made.
 */
export const ProvenanceSchema = z.looseObject({
  tool: z.string(),
  toolVersion: z.string(),
  gitRevision: z.string().optional(),
  createdAt: z.string(),
  inputs: z.record(z.string(), z.unknown()).optional(),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** The header every saved JSON artifact carries: its kind, schema version and provenance. */
export const ArtifactHeaderSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  kind: z.string().min(1),
  provenance: ProvenanceSchema,
});
export type ArtifactHeader = z.infer<typeof ArtifactHeaderSchema>;

/**
 * A saved artifact: header plus a typed payload under `data`.
 * `artifactSchema(GoldSummarySchema)` validates a file written by `makeArtifact`.
 */
export function artifactSchema<T extends z.ZodType>(data: T) {
  return ArtifactHeaderSchema.extend({ data });
}

/** Wraps a payload with the header; the caller supplies provenance (no clock read here). */
export function makeArtifact<T>(kind: string, data: T, provenance: Provenance): ArtifactHeader & { data: T } {
  return { schemaVersion: SCHEMA_VERSION, kind, provenance, data };
}

/**
 * A JSONL record as saved by loclab: the record plus `schemaVersion`, so each line of a
 * predictions or gold file can be checked on its own (files are appended to line by line).
 */
export function versionedRecordSchema<Shape extends z.ZodRawShape>(record: z.ZodObject<Shape>) {
  // Generic over the shape (not the object type) so the result keeps the record's field types.
  return record.extend({ schemaVersion: z.literal(SCHEMA_VERSION) });
}

/** Adds `schemaVersion` to a record before it is written as one JSONL line. */
export function stampRecord<T extends object>(record: T): T & { schemaVersion: typeof SCHEMA_VERSION } {
  return { schemaVersion: SCHEMA_VERSION, ...record };
}
