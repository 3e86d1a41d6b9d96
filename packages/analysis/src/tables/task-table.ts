import * as aq from "arquero";
import type { ColumnTable } from "arquero";
import type { Breakdown } from "../breakdown/breakdown-runs.js";

const FLAGS = ["loops", "loopsFinishLength", "loopsRepeatedLine", "badPrefix", "noFile", "missing"] as const;
const CATEGORIES = ["solved", "outOfBudget", "wrongPatch", "noPatch"] as const;

/**
 * The drill-down table: one row per run × task with its outcome category and its flags
 * (loops, finish length, repeated line, bad prefix, no file, missing), from the rows' id lists.
 * Filter it in a notebook, e.g. `taskTable(b).filter(d => d.noFile)`.
 */
export function taskTable(breakdown: Breakdown): ColumnTable {
  const rows = breakdown.rows.flatMap((row) => {
    const category = new Map<string, string>();
    for (const c of CATEGORIES) for (const id of row.ids[c]) category.set(id, c);
    const flags = FLAGS.map((flag) => [flag, new Set(row.ids[flag])] as const);
    return row.ids.tasks.map((id) => ({
      run: row.run,
      instanceId: id,
      category: category.get(id) ?? null,
      ...Object.fromEntries(flags.map(([flag, set]) => [flag, set.has(id)])),
    }));
  });
  return aq.from(rows);
}
