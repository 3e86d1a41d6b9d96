import { existsSync } from "node:fs";
import { join } from "node:path";
import { median, readTrajectory, summarizeTrajectory, type TaskSummary } from "@loclab/analysis";
import {
  cellLabel,
  type ControlComparison,
  controlLabel,
  keyHistories,
  readLedger,
  readRunManifest,
  type RunRecord,
  runLayout,
} from "@loclab/schemas";
import { parseRunSpec } from "./load-run-spec.js";
import { type PlannedAttempt, planRun } from "./run-plan.js";
import { scoreRun } from "./score-run.js";

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

export interface LocalizationBreakdown {
  dir: string;
  rows: LocalizationBreakdownRow[];
  /** Each control against `plain` on `pairedMetric`, per seed and pooled (as `scoreRun` gives them). */
  comparisons: ControlComparison[];
  pairedMetric: string;
  /** Trajectories that could not be read (named with the reason); their keys count by their records alone. */
  problems: string[];
}

/**
 * The breakdown of a loclab localization run, read from its folder: per cell (seed × control)
 * the keys by how they ended (from the ledger's final records), loops and paths that do not
 * exist (from the final attempts' trajectories, read as the 13-run breakdown reads any loclab
 * trajectory), and the paired tests of each control against plain on `pairedMetric`
 * (`scoreRun`, nothing written). A trajectory that cannot be read is named in `problems`.
 */
export async function localizationBreakdown(
  dir: string,
  options: { pairedMetric?: string; repeatedLine?: number } = {},
): Promise<LocalizationBreakdown> {
  const manifest = await readRunManifest(dir);
  if (!manifest)
    throw new Error(
      `${dir}: no manifest.json: not a run folder (loclab breakdown DIR reads the folder of a loclab run)`,
    );
  const spec = parseRunSpec(manifest.spec, { source: runLayout.manifest(dir) });
  const plan = await planRun(spec);
  const ledger = existsSync(runLayout.ledger(dir))
    ? await readLedger(runLayout.ledger(dir), { repair: false })
    : { records: [] as RunRecord[] };
  const histories = keyHistories(ledger.records);
  const repeatedLine = options.repeatedLine ?? 5;
  const problems: string[] = [];
  const rows: LocalizationBreakdownRow[] = [];
  const byCell = new Map<string, PlannedAttempt[]>();
  for (const attempt of plan.attempts)
    byCell.set(attempt.cellLabel, [...(byCell.get(attempt.cellLabel) ?? []), attempt]);
  for (const cell of plan.cells) {
    const label = cellLabel(cell);
    const row: LocalizationBreakdownRow = {
      cell: label,
      seed: cell.seed,
      control: controlLabel(cell.control),
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
    const turns: number[] = [];
    for (const attempt of byCell.get(label) ?? []) {
      row.keys += 1;
      const final = histories.get(attempt.key)?.final;
      if (!final) {
        row.open += 1;
        continue;
      }
      countExit(row, final);
      if (final.outcome === "finished" || final.outcome === "forced_final") turns.push(final.turns);
      const summary = final.trajectory ? await summaryOf(join(dir, final.trajectory), problems) : undefined;
      if (!summary) continue;
      if (
        summary.loopCandidates.some(
          (candidate) => candidate.finishReason === "length" || candidate.longestLineRun >= repeatedLine,
        )
      )
        row.loops += 1;
      if (summary.noFileObservations > 0) row.noSuchFileKeys += 1;
      row.noSuchFile += summary.noFileObservations;
    }
    row.medianTurns = median(turns);
    rows.push(row);
  }
  const pairedMetric = options.pairedMetric ?? "file.acc@1";
  const { comparisons } = await scoreRun(dir, { pairedMetric, write: false });
  return { dir, rows, comparisons, pairedMetric, problems };
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

async function summaryOf(path: string, problems: string[]): Promise<TaskSummary | undefined> {
  try {
    return summarizeTrajectory(await readTrajectory(path, "loclab"));
  } catch (error) {
    problems.push(`${path}: ${(error as Error).message}`);
    return undefined;
  }
}
