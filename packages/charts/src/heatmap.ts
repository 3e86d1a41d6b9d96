import type { TopLevelSpec } from "vega-lite";
import { assertFieldsPresent } from "./check-data.js";
import { resolveField, type FieldOption } from "./field.js";
import { chartConfig } from "./theme.js";

export interface HeatmapOptions {
  /** Long-format rows: one object per cell, e.g. `{ a: "agentA", b: "agentB", p: 0.03 }`. */
  readonly data: readonly object[];
  /** Column category. Defaults to nominal. */
  readonly x: FieldOption;
  /** Row category. Defaults to nominal. */
  readonly y: FieldOption;
  /** Cell value, mapped to colour. Always quantitative. */
  readonly value: FieldOption;
  readonly title?: string;
  /** A Vega colour scheme name, e.g. "blues" (default), "viridis", "reds". */
  readonly scheme?: string;
  /**
   * Fixed colour domain. Give `[0, 1]` for p-values or Jaccard overlaps so that two
   * matrices use the same colours and a uniformly small matrix does not look alarming.
   */
  readonly domain?: readonly [number, number];
  /** Reverse the colour scale (e.g. darkest for the smallest p-values). */
  readonly reverse?: boolean;
  /** Print each cell's value in the cell. Default true. */
  readonly labels?: boolean;
  /**
   * d3-format specifier for the labels. Default: "d" when every value is an integer
   * (counts), otherwise ".2~g" (p-values such as 0.031 or 1e-6 stay short).
   */
  readonly format?: string;
  /** Explicit category order for both axes, so a pairwise matrix is symmetric on screen. */
  readonly order?: readonly string[];
  /** Side of a square cell in pixels. Default 40, enough for a 4-character label. */
  readonly cellSize?: number;
  /**
   * Colour by bins instead of a continuous scale: the cut points, ascending (e.g. `[0.05]` for
   * p-values: a cell is either below the significance level or not, and the legend says so).
   */
  readonly thresholds?: readonly number[];
}

/**
 * Heatmap of a matrix given in long format: pairwise p-values, overlap matrices.
 *
 * Cells whose value is null, undefined or NaN are left blank (e.g. the diagonal of a
 * pairwise test matrix). Label colour flips to white on the darker half of the scale,
 * assuming a sequential scheme that darkens as the value grows (true of "blues",
 * "greens", "reds", "oranges", "purples", "greys"; `reverse` is taken into account).
 *
 * @example heatmap({ data: pairs, x: "a", y: "b", value: "p", domain: [0, 1], reverse: true })
 */
export function heatmap(options: HeatmapOptions): TopLevelSpec {
  const x = resolveField(options.x, "nominal");
  const y = resolveField(options.y, "nominal");
  const value = { ...resolveField(options.value, "quantitative"), type: "quantitative" as const };
  assertFieldsPresent("heatmap", options.data, [x.field, y.field, value.field]);

  const values = options.data
    .map((row) => (row as Record<string, unknown>)[value.field])
    .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  const [low, high] = options.domain ?? (values.length === 0 ? [0, 0] : [Math.min(...values), Math.max(...values)]);
  const middle = (low + high) / 2;
  const format = options.format ?? (values.every(Number.isInteger) ? "d" : ".2~g");
  const datum = `datum[${JSON.stringify(value.field)}]`;
  const darkTest = options.reverse ? `${datum} < ${middle}` : `${datum} > ${middle}`;
  const sort = options.order === undefined ? ("ascending" as const) : [...options.order];
  const step = options.cellSize ?? 40;

  const scale = options.thresholds
    ? {
        type: "threshold" as const,
        domain: [...options.thresholds],
        scheme: options.scheme ?? "blues",
        ...(options.reverse ? { reverse: true } : {}),
      }
    : {
        scheme: options.scheme ?? "blues",
        ...(options.domain === undefined ? {} : { domain: [...options.domain] }),
        ...(options.reverse ? { reverse: true } : {}),
      };
  const rect = {
    mark: { type: "rect" as const },
    encoding: {
      color: {
        field: value.field,
        type: value.type,
        title: value.title,
        scale,
        legend: {
          titleLimit: 0,
          labelLimit: 0,
          ...(options.thresholds ? { type: "symbol" as const, symbolType: "square" } : {}),
        },
      },
    },
  };
  const text = {
    mark: { type: "text" as const, fontSize: 11 },
    encoding: {
      text: { field: value.field, type: value.type, format },
      color: { condition: { test: darkTest, value: "white" }, value: "black" },
    },
  };

  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    ...(options.title === undefined ? {} : { title: options.title }),
    width: { step },
    height: { step },
    data: { values: [...options.data] },
    // Blank cells rather than a "null" label or a colour for NaN.
    transform: [{ filter: { field: value.field, valid: true } }],
    // Category names are never cut (Vega's default axis label limit is 180 px).
    encoding: {
      x: { field: x.field, type: x.type, title: x.title, sort, axis: { labelLimit: 0, titlePadding: 8 } },
      y: { field: y.field, type: y.type, title: y.title, sort, axis: { labelLimit: 0, titlePadding: 8 } },
    },
    layer: options.labels === false ? [rect] : [rect, text],
    config: chartConfig,
  };
}
