import { heatmap } from "@loclab/charts";
import type { Breakdown } from "../breakdown/breakdown-runs.js";
import { overlapTable } from "../tables/overlap-table.js";
import { type ChartSpec, RUN_LABEL_LIMIT } from "./outcome-chart.js";

/**
 * Heatmap of the pairwise overlap of solved sets (issue 8 item 3): cell (a, b) is the number of
 * tasks both runs solved, the diagonal each run's solved count; runs in breakdown order on both
 * axes; built with the charts package's heatmap from overlapTable. `value: "jaccard"` colours
 * by the Jaccard index on [0, 1] instead.
 */
export function overlapHeatmap(
  breakdown: Breakdown,
  options: { value?: "both" | "jaccard"; title?: string } = {},
): ChartSpec {
  const value = options.value ?? "both";
  const spec = heatmap({
    data: overlapTable(breakdown).objects(),
    x: { field: "a", title: "run" },
    y: { field: "b", title: "run" },
    value: { field: value, title: value === "both" ? "solved by both" : "Jaccard" },
    order: breakdown.overlap.runs,
    title: options.title ?? (value === "both" ? "Tasks solved by both runs" : "Overlap of solved sets (Jaccard)"),
    cellSize: 56,
    ...(value === "jaccard" ? { domain: [0, 1] as const } : {}),
  }) as ChartSpec & { encoding: Record<string, Record<string, unknown>> };
  const axis = { labelLimit: RUN_LABEL_LIMIT };
  return {
    ...spec,
    encoding: { ...spec.encoding, x: { ...spec.encoding.x, axis }, y: { ...spec.encoding.y, axis } },
  } as ChartSpec;
}
