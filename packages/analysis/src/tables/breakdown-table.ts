import * as aq from "arquero";
import { breakdownJson } from "../breakdown/breakdown-json.js";
import type { ColumnTable } from "arquero";
import type { Breakdown } from "../breakdown/breakdown-runs.js";

/**
 * The breakdown as an arquero table, one row per run, in the FGL study's column order (docs/definitions.md
 * §8): run, tasks, solved, out of budget, wrong patch, no patch, median calls, loops (either,
 * finish_reason length, repeated line), bad prefix, no file, then vs. base (base only, run only,
 * exact McNemar p; null for the base). Columns are camelCase for code; `toMarkdown()` renders it.
 */
export function breakdownTable(breakdown: Breakdown): ColumnTable {
  // The CLI's JSON rows, with vs. base flattened into three columns.
  return aq.from(
    breakdownJson(breakdown).runs.map(({ vsBase, ...row }) => ({
      ...row,
      baseOnly: vsBase?.baseOnly ?? null,
      runOnly: vsBase?.runOnly ?? null,
      pVsBase: vsBase?.p ?? null,
    })),
  );
}
