import type { TopLevelSpec } from "vega-lite";
import { assertFieldsPresent } from "./check-data.js";
import { sizeProperties, type ChartSize } from "./chart-size.js";
import { resolveField, type FieldOption } from "./field.js";
import { chartConfig } from "./theme.js";

/**
 * Category order: by the bar's total (largest first is the usual "which repository
 * dominates" reading), by category name, or an explicit list of category values.
 */
export type BarSort = "value-descending" | "value-ascending" | "category" | readonly string[];

export interface BarChartOptions extends ChartSize {
  /** Rows, one object per bar or per bar segment. */
  readonly data: readonly object[];
  /** The category: one bar per distinct value. Defaults to nominal. */
  readonly x: FieldOption;
  /** The bar length. Defaults to quantitative, summed per bar (and per segment). */
  readonly y: FieldOption;
  /** Splits each bar into stacked, coloured segments (e.g. per benchmark). */
  readonly color?: FieldOption;
  readonly title?: string;
  /**
   * Lay the categories along the vertical axis so bars grow to the right. `x` stays
   * the category and `y` the value: long labels such as repository names then read
   * horizontally without swapping the options.
   */
  readonly horizontal?: boolean;
  /** Defaults to "category". */
  readonly sort?: BarSort;
}

/**
 * Bar chart, stacked when `color` is given.
 *
 * The value is summed per category (and colour), so rows may be pre-aggregated
 * (one per bar, the sum is the identity) or long-format (several per bar).
 *
 * @example barChart({ data: rows, x: "repo", y: "instances", color: "benchmark", horizontal: true })
 */
export function barChart(options: BarChartOptions): TopLevelSpec {
  const category = resolveField(options.x, "nominal");
  const value = resolveField(options.y, "quantitative");
  const color = options.color === undefined ? undefined : resolveField(options.color, "nominal");
  assertFieldsPresent("barChart", options.data, [category.field, value.field, ...(color ? [color.field] : [])]);

  const horizontal = options.horizontal ?? false;
  const valueChannel = horizontal ? "x" : "y";
  const sort = options.sort ?? "category";
  const categorySort =
    sort === "category"
      ? "ascending"
      : sort === "value-descending"
        ? `-${valueChannel}`
        : sort === "value-ascending"
          ? valueChannel
          : [...sort];

  const categoryEncoding = { field: category.field, type: category.type, title: category.title, sort: categorySort };
  const valueEncoding = {
    field: value.field,
    type: value.type,
    title: value.title,
    // Summing only makes sense for quantities; an ordinal "value" is drawn as is.
    ...(value.type === "quantitative" ? { aggregate: "sum" as const } : {}),
  };

  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    ...(options.title === undefined ? {} : { title: options.title }),
    ...sizeProperties(options),
    data: { values: [...options.data] },
    mark: { type: "bar" },
    encoding: {
      x: horizontal ? valueEncoding : categoryEncoding,
      y: horizontal ? categoryEncoding : valueEncoding,
      ...(color ? { color: { field: color.field, type: color.type, title: color.title } } : {}),
    },
    config: chartConfig,
  };
}
