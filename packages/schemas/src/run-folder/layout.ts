import { join } from "node:path";
import { instanceFile, pathInside } from "../instance-id.js";

/**
 * Where a run keeps what it writes, inside its folder `dir` (docs/architecture.md, "The run
 * folder", gives each file's schema):
 *
 * - `manifest.json`: the resolved spec and the environment, written once at the start;
 * - `sessions.jsonl`: one line per start or resume (pid, host, endpoints' answers);
 * - `attempts.jsonl`: the attempt ledger, one `RunRecord` per attempt, append-only: the truth;
 * - `cells/<seed-s>/<control>/predictions.jsonl`: the predictions of one cell, derived from the
 *   ledger (`cellPredictions`), rebuilt from it on resume;
 * - `trajectories/<seed-s>/<control>/<instance>/attempt-<n>.traj.jsonl`: every attempt's trajectory;
 * - `controls/mismatch-<seed>.json`: the mismatch pairing of the run's instances;
 * - a repair run's `localizations/<key>.json` (+ `.traj.jsonl`): the localizer stage its hand-off
 *   arms share, and `judgements/<digest>.json`: the judge's verdicts, each written once;
 * - `results/`: what `loclab run score` writes; `export/`: predictions in the peers' format;
 * - no workspace: materialized trees and shuffled copies (with their mappings, never shown to
 *   the model) are in the workspace cache all runs share, so deleting a run folder never
 *   touches a tree another run uses;
 * - `.loclab.lock` while a runner works in it.
 */
export const runLayout = {
  manifest: (dir: string) => join(dir, "manifest.json"),
  sessions: (dir: string) => join(dir, "sessions.jsonl"),
  ledger: (dir: string) => join(dir, "attempts.jsonl"),
  cellDir: (dir: string, cell: string) => pathInside(dir, "cells", ...cell.split("/")),
  predictions: (dir: string, cell: string) => join(runLayout.cellDir(dir, cell), "predictions.jsonl"),
  trajectoryDir: (dir: string, cell: string, instanceId: string) =>
    instanceFile(pathInside(dir, "trajectories", ...cell.split("/")), instanceId, ""),
  trajectory: (dir: string, cell: string, instanceId: string, attempt: number) =>
    join(runLayout.trajectoryDir(dir, cell, instanceId), `attempt-${attempt}.traj.jsonl`),
  controls: (dir: string) => join(dir, "controls"),
  pairing: (dir: string, seed: number) => join(dir, "controls", `mismatch-${seed}.json`),
  results: (dir: string) => join(dir, "results"),
  score: (dir: string) => join(dir, "results", "score.json"),
  export: (dir: string) => join(dir, "export"),
  lock: (dir: string) => join(dir, ".loclab.lock"),
  /** A repair run's localizer stage, by its key: the stored result and its trajectory. */
  localizationStage: (dir: string, key: string) => join(dir, "localizations", `${key}.json`),
  localizationTrajectory: (dir: string, key: string) => join(dir, "localizations", `${key}.traj.jsonl`),
  /** A judgement, by the digest of finding × judge model × rubric. */
  judgement: (dir: string, digest: string) => join(dir, "judgements", `${digest}.json`),
} as const;
