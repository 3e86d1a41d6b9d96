import type { TopLevelSpec } from "vega-lite";
import { assertFieldsPresent } from "./check-data.js";
import { sizeProperties, type ChartSize } from "./chart-size.js";
import { resolveField, type FieldOption } from "./field.js";
import { chartConfig } from "./theme.js";

/**
 * Binning: a number is the maximum number of bins (Vega-Lite picks "nice" edges);
 * `{ step }` fixes the bin width, e.g. `{ step: 1 }` for small integer counts such as
 * gold files per instance, where nice-number binning would merge 1 and 2.
 */
export type HistogramBins = number | { readonly step: number };

export interface HistogramOptions extends ChartSize {
  readonly data: readonly object[];
  /** The numeric field to bin (always treated as quantitative). */
  readonly field: FieldOption;
  /** Default: at most 20 bins. */
  readonly bins?: HistogramBins;
  readonly title?: string;
  /** Title of the count axis. Default "rows". */
  readonly countTitle?: string;
}

/**
 * Histogram: row counts per bin of one numeric field.
 *
 * @example histogram({ data: perInstance, field: { field: "goldFiles", title: "gold files" }, bins: { step: 1 } })
 */
export function histogram(options: HistogramOptions): TopLevelSpec {
  const field = resolveField(options.field, "quantitative");
  assertFieldsPresent("histogram", options.data, [field.field]);
  const bins = options.bins ?? 20;
  const bin = typeof bins === "number" ? { maxbins: bins } : { step: bins.step };

  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    ...(options.title === undefined ? {} : { title: options.title }),
    ...sizeProperties(options),
    data: { values: [...options.data] },
    mark: { type: "bar" },
    encoding: {
      x: { field: field.field, type: "quantitative", title: field.title, bin },
      y: { aggregate: "count", type: "quantitative", title: options.countTitle ?? "rows" },
    },
    config: chartConfig,
  };
}
