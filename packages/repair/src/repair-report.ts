import { join } from "node:path";
import { breakdownJson, type BreakdownJson, breakdownTable, median, outcomeChart } from "@loclab/analysis";
import { writeChart } from "@loclab/charts";
import { toCsv } from "@loclab/runner";
import { writeFileAtomic } from "@loclab/schemas";
import { type RepairBreakdown, type RepairBreakdownOptions, repairBreakdown } from "./repair-breakdown.js";

/** One cell's verdicts and exits: what `loclab run score` prints above the breakdown. */
export interface RepairCellScore {
  cell: string;
  keys: number;
  done: number;
  resolved: number;
  /** resolved / keys done; null when none is done. */
  rate: number | null;
  /** The evaluation's statuses of the final patches. */
  evaluation: Record<string, number>;
  /** The fixer's exits. */
  exits: Record<string, number>;
  /** Wrong patches that met a limit (patch-too-large, log-over-limit): counted under wrong patch too. */
  overLimit: number;
  /** Median counted calls by the ledger (the budget's own count: the localizer's turns in, the refused call out); null when none is done. */
  medianCalls: number | null;
}

export interface RepairReport {
  breakdown: RepairBreakdown;
  cells: RepairCellScore[];
  json: BreakdownJson;
  /** Files written under the run's results/. */
  written: string[];
}

/**
 * Scores a repair run from its folder and writes its results: `results/repair-breakdown.json`
 * (the breakdown as `breakdownJson` gives it, with the cells' verdicts and the keys still
 * open), `results/repair-breakdown.csv` (FGL's Table 4, one row per cell) and
 * `results/repair-outcomes.{svg,json}` (the outcome chart).
 */
export async function writeRepairReport(dir: string, options: RepairBreakdownOptions = {}): Promise<RepairReport> {
  const breakdown = await repairBreakdown(dir, options);
  const cells = cellScores(breakdown);
  const json = breakdownJson(breakdown.breakdown);
  const results = join(dir, "results");
  const jsonPath = join(results, "repair-breakdown.json");
  const csvPath = join(results, "repair-breakdown.csv");
  await writeFileAtomic(
    jsonPath,
    `${JSON.stringify({ ...json, cells, open: breakdown.open, problems: breakdown.problems, overLimit: breakdown.overLimit }, null, 2)}\n`,
  );
  // The over-limit wrong patches as the CSV's last column (a part of wrongPatch, not beside it).
  const rows = breakdownTable(breakdown.breakdown)
    .objects()
    .map((row) => ({ ...row, wrongPatchOverLimit: breakdown.overLimit[(row as { run: string }).run]?.length ?? 0 }));
  await writeFileAtomic(csvPath, toCsv(rows));
  const charts = await writeChart(
    outcomeChart(breakdown.breakdown, { title: "repair run: outcomes per cell" }),
    join(results, "repair-outcomes"),
    {
      formats: ["svg", "json"],
    },
  );
  return { breakdown, cells, json, written: [jsonPath, csvPath, ...charts] };
}

/** Per cell: keys, done, resolved, the evaluation's statuses and the fixer's exits. */
export function cellScores(breakdown: RepairBreakdown): RepairCellScore[] {
  return [...breakdown.records].map(([cell, records]) => {
    const open = breakdown.open.filter((key) => key.cell === cell).length;
    const resolved = records.filter((record) => record.repair?.resolved).length;
    const count = (values: (string | undefined | null)[]) => {
      const counts: Record<string, number> = {};
      for (const value of values) if (value) counts[value] = (counts[value] ?? 0) + 1;
      return counts;
    };
    return {
      cell,
      keys: records.length + open,
      done: records.length,
      resolved,
      rate: records.length > 0 ? resolved / records.length : null,
      evaluation: count(records.map((record) => record.repair?.evaluation.status)),
      exits: count(records.map((record) => record.exit)),
      overLimit: breakdown.overLimit[cell]?.length ?? 0,
      medianCalls: median(records.map((record) => record.repair?.calls ?? 0)),
    };
  });
}
