import type { AcrossSeeds, CellScore } from "@loclab/schemas";
import { sampleStandardDeviation } from "simple-statistics";

const percent = (value: number) => (100 * value).toFixed(2);

/** Per control and metric, the mean ± sample standard deviation across the seeds' cells (SHERLOC's "84.33 ± 0.72"). Pure. */
export function acrossSeeds(
  cells: readonly CellScore[],
  controls: readonly string[],
  metrics: readonly string[],
): AcrossSeeds[] {
  const rows: AcrossSeeds[] = [];
  for (const control of controls) {
    for (const metric of metrics) {
      const values = cells
        .filter((cell) => cell.control === control && metric in cell.metrics)
        .map((cell) => cell.metrics[metric] as number);
      if (values.length === 0) continue;
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
      const sd = values.length > 1 ? sampleStandardDeviation(values) : null;
      const formatted = sd === null ? percent(mean) : `${percent(mean)} ± ${percent(sd)}`;
      rows.push({ control, metric, seeds: values.length, mean, sd, values, formatted });
    }
  }
  return rows;
}
