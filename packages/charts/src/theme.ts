import type { Config } from "vega-lite";

/**
 * The only font family installed on the build machines (Debian's fonts-dejavu).
 * Vega's default ("sans-serif") makes resvg fall back to whatever it finds first,
 * so we name the family explicitly in both the spec and the PNG renderer.
 */
export const CHART_FONT = "DejaVu Sans";

/**
 * Shared Vega-Lite config for every builder: explicit font, and an opaque white
 * background so the PNG is readable on dark viewers (PNG keeps transparency).
 */
export const chartConfig: Config = {
  font: CHART_FONT,
  background: "white",
  // Repository names such as "scikit-learn/scikit-learn" are cut at the default 180 px.
  axis: { labelFont: CHART_FONT, titleFont: CHART_FONT, labelLimit: 260 },
  legend: { labelFont: CHART_FONT, titleFont: CHART_FONT },
  title: { font: CHART_FONT, anchor: "start" },
  view: { stroke: null },
};
