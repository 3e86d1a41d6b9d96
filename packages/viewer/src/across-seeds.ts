import { sampleStandardDeviation } from "simple-statistics";
import type { SiteAcrossSeeds, SiteCell } from "./site-types.js";

/**
 * Each group of cells that differ only in their seed (control, and arm for a repair run), and
 * each metric: mean ± sample standard deviation over the seeds (SHERLOC's "84.33 ± 0.72"). Pure.
 */
export function acrossSeedsOfCells(cells: readonly SiteCell[]): SiteAcrossSeeds[] {
  const groups = new Map<string, SiteCell[]>();
  for (const cell of cells) {
    const group = cell.cell.split("/").slice(1).join("/");
    const members = groups.get(group) ?? [];
    if (members.length === 0) groups.set(group, members);
    members.push(cell);
  }
  const rows: SiteAcrossSeeds[] = [];
  for (const [group, members] of groups) {
    const metrics = [...new Set(members.flatMap((cell) => Object.keys(cell.metrics)))];
    for (const metric of metrics) {
      const values = members
        .map((cell) => cell.metrics[metric])
        .filter((value): value is number => typeof value === "number");
      if (values.length === 0) continue;
      rows.push({
        group,
        metric,
        mean: values.reduce((sum, value) => sum + value, 0) / values.length,
        sd: values.length > 1 ? sampleStandardDeviation(values) : null,
        seeds: values.length,
      });
    }
  }
  return rows;
}
