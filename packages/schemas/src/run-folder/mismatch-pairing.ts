import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { ARTIFACT_KINDS } from "../artifact-kinds.js";
import { writeJsonAtomic } from "../atomic-write.js";
import { SCHEMA_VERSION } from "../version.js";
import { runLayout } from "./layout.js";

/** One instance of the mismatch control: its issue, shown with another repository's snapshot. */
export const MismatchPairSchema = z.strictObject({
  instanceId: z.string(),
  /** The instance whose repository snapshot the model is shown. */
  snapshotOf: z.string(),
  repo: z.string(),
  snapshotRepo: z.string(),
  snapshotCommit: z.string(),
});
export type MismatchPair = z.infer<typeof MismatchPairSchema>;

/**
 * `controls/mismatch-<seed>.json`: the mismatch control's pairing of a run's instances
 * (docs/definitions.md §4), kept outside trajectories so the model never sees it. Layout-1
 * files (loclab 0.1.0) have no `kind` and `schemaVersion`.
 */
export const MismatchPairingSchema = z.strictObject({
  kind: z.literal(ARTIFACT_KINDS.mismatchPairing).optional(),
  schemaVersion: z.literal(SCHEMA_VERSION).optional(),
  seed: z.number().int(),
  pairs: z.array(MismatchPairSchema),
});
export type MismatchPairing = z.infer<typeof MismatchPairingSchema>;

export async function writeMismatchPairing(dir: string, seed: number, pairs: readonly MismatchPair[]): Promise<void> {
  await writeJsonAtomic(
    runLayout.pairing(dir, seed),
    MismatchPairingSchema.parse({ kind: ARTIFACT_KINDS.mismatchPairing, schemaVersion: SCHEMA_VERSION, seed, pairs }),
  );
}

/** The pairing of `seed`, or undefined when the run has none; a damaged file is an error naming it. */
export async function readMismatchPairing(dir: string, seed: number): Promise<MismatchPairing | undefined> {
  const path = runLayout.pairing(dir, seed);
  if (!existsSync(path)) return undefined;
  const checked = MismatchPairingSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`${path}: not a mismatch pairing: ${issue?.path.join(".") || "(top)"}: ${issue?.message}`);
  }
  return checked.data;
}
