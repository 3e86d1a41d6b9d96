import * as aq from "arquero";
import type { ColumnTable } from "arquero";
import type { Breakdown } from "../breakdown/breakdown-runs.js";

/**
 * The breakdown as an arquero table, one row per run, in the FGL study's column order (domain.md
 * §8): run, tasks, solved, out of budget, wrong patch, no patch, median calls, loops (either,
 * finish_reason length, repeated line), bad prefix, no file, then vs. base (base only, run only,
 * exact McNemar p; null for the base). Columns are camelCase for code; `toMarkdown()` renders it.
 */
export function breakdownTable(breakdown: Breakdown): ColumnTable {
  return aq.from(
    breakdown.rows.map((row) => ({
      run: row.run,
      tasks: row.tasks,
      solved: row.solved,
      outOfBudget: row.outOfBudget,
      wrongPatch: row.wrongPatch,
      noPatch: row.noPatch,
      medianCalls: row.medianCalls,
      loops: row.loops,
      loopsFinishLength: row.loopsFinishLength,
      loopsRepeatedLine: row.loopsRepeatedLine,
      badPrefix: row.badPrefix,
      noFile: row.noFile,
      baseOnly: row.vsBase?.baseOnly ?? null,
      runOnly: row.vsBase?.runOnly ?? null,
      pVsBase: row.vsBase?.p ?? null,
    })),
  );
}
