import { barChart, renderSvg } from "@loclab/charts";
import type { SiteCell, SiteChart } from "./site-types.js";

/**
 * The overview's charts, as @loclab/charts' Vega-Lite specs rendered to SVG when the site is
 * made: the page then needs no chart library and makes no request. The binary metric per cell,
 * and the mean turns per cell.
 */
export async function siteCharts(cells: readonly SiteCell[], binary: string): Promise<SiteChart[]> {
  if (cells.length === 0) return [];
  const charts: SiteChart[] = [];
  for (const [metric, axis] of [
    [binary, `${binary} (share of instances)`],
    ["turns", "mean turns"],
  ] as const) {
    const title = `${metric === "turns" ? "mean turns" : metric} per cell`;
    const spec = barChart({
      data: cells.map((cell) => ({ cell: cell.cell, [metric]: cell.metrics[metric] ?? 0 })),
      x: { field: "cell", title: "cell" },
      y: { field: metric, title: axis },
      horizontal: true,
      title,
    });
    charts.push({ title, spec, svg: await renderSvg(spec) });
  }
  return charts;
}
