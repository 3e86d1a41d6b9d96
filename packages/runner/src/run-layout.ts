import { join } from "node:path";
import { instanceFile, pathInside } from "@loclab/schemas";

/**
 * Where a run keeps what it writes, inside its folder `dir` (docs/definitions.md §10):
 *
 * - `manifest.json`: the resolved spec and the environment, written once at the start;
 * - `sessions.jsonl`: one line per start or resume (pid, host, endpoints' answers);
 * - `attempts.jsonl`: the attempt ledger, one `RunRecord` per attempt, append-only;
 * - `cells/<seed-s>/<control>/predictions.jsonl`: the predictions of one cell;
 * - `trajectories/<seed-s>/<control>/<instance>/attempt-<n>.traj.jsonl`: every attempt's trajectory;
 * - `controls/mismatch-<seed>.json`: the mismatch pairing of the run's instances;
 * - `results/`: what `scoreRun` writes; `export/`: predictions in the peers' format;
 * - no workspace: materialized trees and shuffled copies (with their mappings, never shown to
 *   the model) are in the workspace cache all runs share (`cacheDir`, default
 *   `defaultWorkspaceCacheDir()`; `loclab cache ls|clear`), so deleting a run folder never
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
  pairing: (dir: string, seed: number) => join(dir, "controls", `mismatch-${seed}.json`),
  results: (dir: string) => join(dir, "results"),
  export: (dir: string) => join(dir, "export"),
} as const;
