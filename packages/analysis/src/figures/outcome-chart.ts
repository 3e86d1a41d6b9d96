import { barChart } from "@loclab/charts";
import type { Breakdown } from "../breakdown/breakdown-runs.js";
import { OUTCOME_CATEGORIES, OUTCOME_CATEGORY_LABELS } from "../breakdown/task-outcome-category.js";
import { outcomeTable } from "../tables/outcome-table.js";

/** A Vega-Lite spec, as the charts package builds it. */
export type ChartSpec = ReturnType<typeof barChart>;

const ORDER = OUTCOME_CATEGORIES.map((c) => OUTCOME_CATEGORY_LABELS[c]);
/** Pixels of a run name on an axis before Vega cuts it with "…" (its default is 180). */
export const RUN_LABEL_LIMIT = 360;
/** Solved green, out of budget amber, wrong patch red, no patch grey. */
const COLOURS = ["#2e7d32", "#f9a825", "#c62828", "#9e9e9e"];

/**
 * Stacked bar of the outcome categories per run (issue 8 item 3): one horizontal bar per run,
 * split into solved / out of budget / wrong patch / no patch, in that order and colour, built
 * with the charts package's barChart (`color` stacks) from outcomeTable. Render with
 * renderSvg / writeChart.
 */
export function outcomeChart(breakdown: Breakdown, options: { title?: string; width?: number } = {}): ChartSpec {
  const data = outcomeTable(breakdown).objects();
  const spec = barChart({
    data,
    x: { field: "run", title: "run" },
    y: { field: "tasks", title: "tasks" },
    color: { field: "category", title: "outcome" },
    horizontal: true,
    sort: breakdown.rows.map((row) => row.run),
    title: options.title ?? "Outcome of every task, per run",
    width: options.width ?? 420,
  }) as ChartSpec & { encoding: Record<string, Record<string, unknown>> };
  const color = spec.encoding.color ?? {};
  return {
    ...spec,
    encoding: {
      ...spec.encoding,
      // Run names are long (system_model_benchmark): show them whole.
      y: { ...spec.encoding.y, axis: { labelLimit: RUN_LABEL_LIMIT } },
      color: { ...color, sort: ORDER, scale: { domain: ORDER, range: COLOURS } },
      order: { field: "order", type: "quantitative" },
    },
  } as ChartSpec;
}
