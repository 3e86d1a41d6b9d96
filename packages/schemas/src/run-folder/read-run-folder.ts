import type { JsonlLineError } from "../jsonl.js";
import type { RunRecord } from "../run-record.js";
import { cellPredictions } from "./cell-predictions.js";
import { runLayout } from "./layout.js";
import { readLedger, readOwnJsonl } from "./ledger.js";
import { type RunManifest, readRunManifest, runFolderLayout } from "./manifest.js";
import { type MismatchPairing, readMismatchPairing } from "./mismatch-pairing.js";
import { readRunScore, type RunScoreFile } from "./run-score.js";
import { type RunSession, RunSessionSchema } from "./session.js";

/** Everything a run folder holds but its trajectories (read on demand: `runLayout.trajectory`). */
export interface RunFolder {
  dir: string;
  /** The folder's layout (`RUN_FOLDER_LAYOUT`; 1 for loclab 0.1.0). */
  layout: number;
  manifest: RunManifest;
  sessions: RunSession[];
  /** The ledger, in file order. */
  records: RunRecord[];
  /** Lines of the ledger and the sessions that could not be read (file and line named), torn last lines included. */
  unreadable: JsonlLineError[];
  /** The mismatch control's pairings, by seed. */
  pairings: Map<number, MismatchPairing>;
  /** `results/score.json`, when the run was scored. */
  score?: RunScoreFile;
  /** The predictions of each cell, derived from the ledger. */
  predictions: ReturnType<typeof cellPredictions>;
}

/**
 * Reads a run folder through its schemas, without changing anything in it: for analysis,
 * status and scoring (the runner itself repairs torn lines when it resumes). A folder without a
 * manifest is an error saying so; one of a newer layout is refused naming both layouts
 * (`RunFolderVersionError`); a layout-1 folder (loclab 0.1.0) is read as it is.
 */
export async function readRunFolder(dir: string): Promise<RunFolder> {
  const manifest = await readRunManifest(dir);
  if (!manifest) throw new Error(`${dir}: no manifest.json: not a run folder (start one with loclab run SPEC)`);
  const [sessions, ledger] = await Promise.all([
    readOwnJsonl(runLayout.sessions(dir), RunSessionSchema, { repair: false }),
    readLedger(runLayout.ledger(dir), { repair: false }),
  ]);
  const pairings = new Map<number, MismatchPairing>();
  const controls = (manifest.spec.controls ?? []) as { kind?: unknown; seed?: unknown }[];
  for (const control of controls) {
    if (control.kind !== "mismatch" || typeof control.seed !== "number" || pairings.has(control.seed)) continue;
    const pairing = await readMismatchPairing(dir, control.seed);
    if (pairing) pairings.set(control.seed, pairing);
  }
  const score = await readRunScore(dir);
  return {
    dir,
    layout: runFolderLayout(manifest),
    manifest,
    sessions: sessions.records,
    records: ledger.records,
    unreadable: [...ledger.skipped, ...sessions.skipped],
    pairings,
    ...(score ? { score } : {}),
    predictions: cellPredictions(ledger.records),
  };
}
