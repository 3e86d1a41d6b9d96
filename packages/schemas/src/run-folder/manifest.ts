import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { ARTIFACT_KINDS } from "../artifact-kinds.js";
import { writeJsonAtomic } from "../atomic-write.js";
import { SCHEMA_VERSION } from "../version.js";
import { runLayout } from "./layout.js";

/**
 * The run folder's layout version: what files a run folder holds and how they are written.
 * 1: loclab 0.1.0 (no `layout` in the manifest; sessions, pairings and `score.json` without a
 * `kind`; each cell's predictions appended beside the ledger). 2: every file with its `kind`;
 * the predictions files derived from the ledger. A reader reads every layout up to its own.
 */
export const RUN_FOLDER_LAYOUT = 2;

/** One endpoint as the runner found it when a session started. */
export const RunEndpointFactsSchema = z.strictObject({
  baseURL: z.string(),
  model: z.string(),
  ready: z.boolean(),
  problem: z.string().optional(),
  /** Its `/v1/models` answer and `/version`, when offered. */
  models: z.unknown().optional(),
  version: z.unknown().optional(),
});
export type RunEndpointFacts = z.infer<typeof RunEndpointFactsSchema>;

/** The software a session ran with. */
export const RunEnvironmentSchema = z.strictObject({
  loclab: z.strictObject({ version: z.string(), gitRevision: z.string().nullable() }),
  packages: z.record(z.string(), z.string()),
  node: z.string(),
});
export type RunEnvironment = z.infer<typeof RunEnvironmentSchema>;

/** `manifest.json`: written once when a run starts; what the run is and where it ran first. */
export const RunManifestSchema = z.strictObject({
  kind: z.literal(ARTIFACT_KINDS.runManifest),
  schemaVersion: z.literal(SCHEMA_VERSION),
  /** `RUN_FOLDER_LAYOUT` of the loclab that started the run; absent: layout 1. */
  layout: z.number().int().positive().optional(),
  /** The spec with defaults filled and paths absolute: `loclab run --resume` runs it again. */
  spec: z.record(z.string(), z.unknown()),
  /** sha256 of the spec's canonical JSON. */
  specDigest: z.string(),
  benchmark: z.string(),
  instances: z.array(z.string()),
  cells: z.array(z.string()),
  attemptKeys: z.number().int().nonnegative(),
  ...RunEnvironmentSchema.shape,
  /** Each endpoint's `/v1/models` answer and `/version`, when offered, at the start. */
  endpoints: z.array(RunEndpointFactsSchema),
  startedAt: z.string(),
});
export type RunManifest = z.infer<typeof RunManifestSchema>;

/** A run folder that this loclab cannot read: a newer layout, or a damaged file. */
export class RunFolderVersionError extends Error {
  override readonly name = "RunFolderVersionError";
}

/**
 * Reads `manifest.json` of a run folder, or undefined when there is none. A damaged one is an
 * error naming it; one of a newer layout than this loclab reads is refused, saying both.
 */
export async function readRunManifest(dir: string): Promise<RunManifest | undefined> {
  const path = runLayout.manifest(dir);
  if (!existsSync(path)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const layout = (value as { layout?: unknown } | null)?.layout;
  if (typeof layout === "number" && layout > RUN_FOLDER_LAYOUT) {
    const by = (value as { loclab?: { version?: string } }).loclab?.version;
    throw new RunFolderVersionError(
      `${path}: a run folder of layout ${layout}${by ? ` (written by loclab ${by})` : ""}; this loclab reads layouts 1 to ${RUN_FOLDER_LAYOUT}: read it with a newer loclab`,
    );
  }
  const checked = RunManifestSchema.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`${path}: not a loclab run manifest: ${issue?.path.join(".") || "(top)"}: ${issue?.message}`);
  }
  return checked.data;
}

/** The layout a manifest's folder was written in. */
export function runFolderLayout(manifest: RunManifest): number {
  return manifest.layout ?? 1;
}

/** Writes `manifest.json` atomically, checked against the schema first. */
export async function writeRunManifest(dir: string, manifest: RunManifest): Promise<void> {
  await writeJsonAtomic(runLayout.manifest(dir), RunManifestSchema.parse(manifest));
}
