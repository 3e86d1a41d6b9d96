import type { TopLevelSpec } from "vega-lite";
import { assertFieldsPresent } from "./check-data.js";
import { sizeProperties, type ChartSize } from "./chart-size.js";
import { resolveField, type FieldOption } from "./field.js";
import { chartConfig } from "./theme.js";

export interface LineChartOptions extends ChartSize {
  /** Long-format rows: one per point (e.g. one per system and k). */
  readonly data: readonly object[];
  /** The horizontal position, quantitative by default (e.g. k). */
  readonly x: FieldOption;
  /** The value, quantitative (e.g. recall@k). */
  readonly y: FieldOption;
  /** One line per value of this field (e.g. the system). */
  readonly color?: FieldOption;
  readonly title?: string;
  /** Fixes the value axis, e.g. [0, 1] for fractions, so curves of different runs compare. */
  readonly yDomain?: readonly [number, number];
  /** Draw a dot at every point (default true): curves with few points read better. */
  readonly points?: boolean;
  /** One panel per value of this field, side by side (e.g. the benchmark), sharing the axes. */
  readonly column?: FieldOption;
}

/** Vega's default palette has 10 colours; more lines would share colours, so switch to 20. */
const MANY_SERIES = 10;

/**
 * Line chart, one line per `color` value: curves such as recall@k over k per system.
 *
 * @example lineChart({ data: rows, x: "k", y: "recall", color: "system", yDomain: [0, 1] })
 */
export function lineChart(options: LineChartOptions): TopLevelSpec {
  const x = resolveField(options.x, "quantitative");
  const y = resolveField(options.y, "quantitative");
  const color = options.color === undefined ? undefined : resolveField(options.color, "nominal");
  const column = options.column === undefined ? undefined : resolveField(options.column, "nominal");
  assertFieldsPresent("lineChart", options.data, [
    x.field,
    y.field,
    ...(color ? [color.field] : []),
    ...(column ? [column.field] : []),
  ]);
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    ...(options.title === undefined ? {} : { title: options.title }),
    ...sizeProperties(options),
    data: { values: [...options.data] },
    mark: { type: "line", point: options.points ?? true },
    encoding: {
      x: { field: x.field, type: x.type, title: x.title },
      y: {
        field: y.field,
        type: y.type,
        title: y.title,
        ...(options.yDomain ? { scale: { domain: [...options.yDomain] } } : {}),
      },
      ...(column ? { column: { field: column.field, type: column.type, title: column.title } } : {}),
      ...(color
        ? {
            color: {
              field: color.field,
              type: color.type,
              title: color.title,
              legend: { labelLimit: 400 },
              ...(new Set(options.data.map((row) => (row as Record<string, unknown>)[color.field])).size > MANY_SERIES
                ? { scale: { scheme: "category20" } }
                : {}),
            },
          }
        : {}),
    },
    config: chartConfig,
  };
}
