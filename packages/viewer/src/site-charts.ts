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
  const specs = [
    {
      title: `${binary} per cell`,
      spec: barChart({
        data: cells.map((cell) => ({ cell: cell.cell, [binary]: cell.metrics[binary] ?? 0 })),
        x: { field: "cell", title: "cell" },
        y: { field: binary, title: `${binary} (share of instances)` },
        horizontal: true,
        title: `${binary} per cell`,
      }),
    },
    {
      title: "mean turns per cell",
      spec: barChart({
        data: cells.map((cell) => ({ cell: cell.cell, turns: cell.metrics.turns ?? 0 })),
        x: { field: "cell", title: "cell" },
        y: { field: "turns", title: "mean turns" },
        horizontal: true,
        title: "mean turns per cell",
      }),
    },
  ];
  for (const { title, spec } of specs) charts.push({ title, spec, svg: await renderSvg(spec) });
  return charts;
}
