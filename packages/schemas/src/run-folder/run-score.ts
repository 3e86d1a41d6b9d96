import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { ARTIFACT_KINDS } from "../artifact-kinds.js";
import { writeFileAtomic } from "../atomic-write.js";
import { SCHEMA_VERSION } from "../version.js";
import { runLayout } from "./layout.js";

/** A number that may be undefined for the data (NaN in memory): `null` in the file, NaN when read. */
const MaybeNumber = z
  .number()
  .nullable()
  .transform((value) => value ?? Number.NaN);
const Count = z.number().int().nonnegative();

/** One cell's scores. */
export const CellScoreSchema = z.strictObject({
  cell: z.string(),
  seed: z.number().int().nullable(),
  control: z.string(),
  /** Instances scored (gold not empty). */
  n: Count,
  /** Instances of the run without a prediction in this cell (scored 0). */
  missingPredictions: Count,
  metrics: z.record(z.string(), MaybeNumber),
  /** Per metric, aligned with `RunScore.instanceIds` (NaN where excluded). */
  perInstance: z.record(z.string(), z.array(MaybeNumber)),
});
export type CellScore = z.output<typeof CellScoreSchema>;

/** A control's metric across seeds: SHERLOC's "84.33 ± 0.72" (percent, sample standard deviation). */
export const AcrossSeedsSchema = z.strictObject({
  control: z.string(),
  metric: z.string(),
  seeds: Count,
  mean: MaybeNumber,
  /** Sample standard deviation (n − 1); null with one seed. */
  sd: z.number().nullable(),
  values: z.array(MaybeNumber),
  /** `84.33 ± 0.72` in percent (just the mean with one seed). */
  formatted: z.string(),
});
export type AcrossSeeds = z.output<typeof AcrossSeedsSchema>;

/** A control against `plain` on the paired metric, for one seed or pooled over seeds. */
export const ControlComparisonSchema = z.strictObject({
  control: z.string(),
  /** A seed, `null` (no seed sent), or `pooled` (every seed's pairs, the bootstrap clustered by instance). */
  seed: z.union([z.number().int(), z.null(), z.literal("pooled")]),
  metric: z.string(),
  pairs: Count,
  plain: MaybeNumber,
  other: MaybeNumber,
  /** other − plain. */
  difference: MaybeNumber,
  /** Pairs where only plain succeeded (b) and only the control did (c). */
  b: Count,
  c: Count,
  p: MaybeNumber,
  midP: MaybeNumber,
  lower: MaybeNumber,
  upper: MaybeNumber,
  confidence: z.number(),
});
export type ControlComparison = z.output<typeof ControlComparisonSchema>;

/** How a cell's keys ended and what its prompts held (from the ledger). */
export const CellAttemptsSchema = z.strictObject({
  cell: z.string(),
  keys: Count,
  /** Keys with a prediction. */
  predicted: Count,
  /** Final outcomes by name (`budget_exhausted`: …), and `open` for keys without one. */
  outcomes: z.record(z.string(), Count),
  /** The final attempts' exits (`submitted`, `step_limit`, `time_limit`, `context_limit`, …). */
  exits: z.record(z.string(), Count),
  /** Attempts whose record has a leak audit (the final attempt of each key). */
  audited: Count,
  /** Summed leak counts of the audited attempts, by the leak audit's count names. */
  leaks: z.record(z.string(), Count),
  /** What was found, `kind:term`, with the number of attempts it was found in, most first. */
  found: z.array(z.strictObject({ term: z.string(), attempts: Count })),
});
export type CellAttempts = z.output<typeof CellAttemptsSchema>;

/**
 * `results/score.json`: the results of a run (`loclab run score`): every cell's metrics, each
 * control's metrics across seeds, the paired comparisons against `plain`, and how the keys
 * ended. Numbers the data leaves undefined (a p-value without discordant pairs of binary
 * values) are NaN in memory and `null` in the file. Layout-1 files (loclab 0.1.0) have no
 * `kind` and `schemaVersion`.
 */
export const RunScoreSchema = z.strictObject({
  kind: z.literal(ARTIFACT_KINDS.runScore).optional(),
  schemaVersion: z.literal(SCHEMA_VERSION).optional(),
  dir: z.string(),
  benchmark: z.string(),
  /** Where the gold came from (the mirrors at base commit, or the patch alone). */
  goldSource: z.string(),
  instanceIds: z.array(z.string()),
  metrics: z.array(z.string()),
  cells: z.array(CellScoreSchema),
  acrossSeeds: z.array(AcrossSeedsSchema),
  comparisons: z.array(ControlComparisonSchema),
  attempts: z.array(CellAttemptsSchema),
});
export type RunScoreFile = z.output<typeof RunScoreSchema>;

/** Writes `results/score.json` (non-finite numbers as `null`), stamped with its kind and version. */
export async function writeRunScore(dir: string, score: Omit<RunScoreFile, "kind" | "schemaVersion">): Promise<string> {
  const path = runLayout.score(dir);
  const stamped = { kind: ARTIFACT_KINDS.runScore, schemaVersion: SCHEMA_VERSION, ...score };
  const text = `${JSON.stringify(stamped, (_key, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`;
  RunScoreSchema.parse(JSON.parse(text));
  await writeFileAtomic(path, text);
  return path;
}

/** Reads `results/score.json`, or undefined when the run was not scored; a damaged file is an error naming it. */
export async function readRunScore(dir: string): Promise<RunScoreFile | undefined> {
  const path = runLayout.score(dir);
  if (!existsSync(path)) return undefined;
  const checked = RunScoreSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`${path}: not a run's score: ${issue?.path.join(".") || "(top)"}: ${issue?.message}`);
  }
  return checked.data;
}
