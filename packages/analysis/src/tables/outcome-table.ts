import * as aq from "arquero";
import type { ColumnTable } from "arquero";
import type { Breakdown } from "../breakdown/breakdown-runs.js";
import { OUTCOME_CATEGORIES, OUTCOME_CATEGORY_LABELS } from "../breakdown/task-outcome-category.js";

/**
 * The outcome partition in long form, one row per run × category (solved, out of budget, wrong
 * patch, no patch), with the tasks, their share of the run, and the time, tokens and cost spent
 * on them (totals and medians over the tasks that logged them; null medians where none did).
 * `order` is the category's position, for stacking. The data of outcomeChart.
 */
export function outcomeTable(breakdown: Breakdown): ColumnTable {
  const rows = breakdown.rows.flatMap((row) =>
    OUTCOME_CATEGORIES.map((category, order) => {
      const cost = row.perCategory[category];
      return {
        run: row.run,
        category: OUTCOME_CATEGORY_LABELS[category],
        order,
        tasks: cost.tasks,
        share: row.tasks === 0 ? 0 : cost.tasks / row.tasks,
        seconds: cost.seconds.tasks > 0 ? cost.seconds.total : null,
        medianSeconds: cost.seconds.median,
        tokens: cost.tokens.tasks > 0 ? cost.tokens.total : null,
        medianTokens: cost.tokens.median,
        costUsd: cost.costUsd.tasks > 0 ? cost.costUsd.total : null,
      };
    }),
  );
  return aq.from(rows);
}
