import { join } from "node:path";
import { keyHistories, type RunFolder, type RunRecord } from "@loclab/schemas";
import { median } from "../breakdown/median.js";
import type { TaskSummary } from "../model/task-summary.js";
import { readTrajectory } from "../read/read-trajectory.js";
import { summarizeTrajectory } from "../summary/summarize-trajectory.js";

/** One cell of a run as its plan defines it: the attempt keys it is to settle. */
export interface PlannedCell {
  cell: string;
  seed: number | null;
  control: string;
  keys: readonly string[];
}

/**
 * How the attempts of one cell ended and what went wrong on the way (docs/definitions.md §10,
 * "Breakdown of a localization run"): a localization run has no resolved labels, so its
 * breakdown is by exit. Counts are of attempt keys, each by its final attempt.
 */
export interface LocalizationBreakdownRow {
  cell: string;
  seed: number | null;
  control: string;
  keys: number;
  /** Submitted within the budget. */
  finished: number;
  /** Submitted on the forced last turn. */
  forcedFinal: number;
  /** The submission was refused twice (exit `format_error`). */
  invalidFinal: number;
  /** Out of turns (exit `step_limit`). */
  stepLimit: number;
  /** Out of wall time (exit `time_limit`). */
  wallBudget: number;
  /** The prompt did not fit the window (exit `context_limit`). */
  contextLimit: number;
  /** Out of tokens (exit `cost_limit`). */
  tokenBudget: number;
  /** The server refused a request (a 4xx other than an overflow). */
  modelError: number;
  /** No final outcome yet (not started, or left open after infrastructure failures). */
  open: number;
  /** Keys whose trajectory has a loop: an output cut by the length limit, or one line `repeatedLine` times in a row. */
  loops: number;
  /** Keys with at least one "No such file" observation (a path that does not exist). */
  noSuchFileKeys: number;
  /** "No such file" observations over the cell. */
  noSuchFile: number;
  /** Median model calls of the finished keys. */
  medianTurns: number | null;
}

/**
 * The per-cell breakdown of a loclab localization run, from its folder as `readRunFolder`
 * (the schemas) reads it: the keys by how they ended (the ledger's final records), loops and
 * paths that do not exist (the final attempts' trajectories, read as the 13-run breakdown reads
 * any loclab trajectory). `cells` come from the run's plan (a key with no record yet is open).
 * A trajectory that cannot be read is named in `problems`; its key counts by its record alone.
 */
export async function localizationCellRows(
  folder: RunFolder,
  cells: readonly PlannedCell[],
  options: { repeatedLine?: number } = {},
): Promise<{ rows: LocalizationBreakdownRow[]; problems: string[] }> {
  const histories = keyHistories(folder.records);
  const repeatedLine = options.repeatedLine ?? 5;
  const problems: string[] = [];
  const rows: LocalizationBreakdownRow[] = [];
  for (const cell of cells) {
    const row = emptyRow(cell);
    const turns: number[] = [];
    for (const key of cell.keys) {
      row.keys += 1;
      const final = histories.get(key)?.final;
      if (!final) {
        row.open += 1;
        continue;
      }
      countExit(row, final);
      if (final.outcome === "finished" || final.outcome === "forced_final") turns.push(final.turns);
      const summary = final.trajectory ? await summaryOf(join(folder.dir, final.trajectory), problems) : undefined;
      if (summary) countTrouble(row, summary, repeatedLine);
    }
    row.medianTurns = median(turns);
    rows.push(row);
  }
  return { rows, problems };
}

function emptyRow(cell: PlannedCell): LocalizationBreakdownRow {
  return {
    cell: cell.cell,
    seed: cell.seed,
    control: cell.control,
    keys: 0,
    finished: 0,
    forcedFinal: 0,
    invalidFinal: 0,
    stepLimit: 0,
    wallBudget: 0,
    contextLimit: 0,
    tokenBudget: 0,
    modelError: 0,
    open: 0,
    loops: 0,
    noSuchFileKeys: 0,
    noSuchFile: 0,
    medianTurns: null,
  };
}

function countExit(row: LocalizationBreakdownRow, record: RunRecord): void {
  if (record.outcome === "finished") row.finished += 1;
  else if (record.outcome === "forced_final") row.forcedFinal += 1;
  else if (record.outcome === "invalid_final") row.invalidFinal += 1;
  else if (record.outcome === "model_error") row.modelError += 1;
  else if (record.exit === "time_limit") row.wallBudget += 1;
  else if (record.exit === "context_limit") row.contextLimit += 1;
  else if (record.exit === "cost_limit") row.tokenBudget += 1;
  else row.stepLimit += 1;
}

function countTrouble(row: LocalizationBreakdownRow, summary: TaskSummary, repeatedLine: number): void {
  const looped = summary.loopCandidates.some(
    (candidate) => candidate.finishReason === "length" || candidate.longestLineRun >= repeatedLine,
  );
  if (looped) row.loops += 1;
  if (summary.noFileObservations > 0) row.noSuchFileKeys += 1;
  row.noSuchFile += summary.noFileObservations;
}

async function summaryOf(path: string, problems: string[]): Promise<TaskSummary | undefined> {
  try {
    return summarizeTrajectory(await readTrajectory(path, "loclab"));
  } catch (error) {
    problems.push(`${path}: ${(error as Error).message}`);
    return undefined;
  }
}
