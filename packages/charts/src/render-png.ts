import type { TopLevelSpec } from "vega-lite";
import { loadResvg } from "./load-renderers.js";
import { renderSvg } from "./render-svg.js";
import type { RenderOptions } from "./render-options.js";
import { CHART_FONT } from "./theme.js";

export interface PngOptions extends RenderOptions {
  /** Pixel density multiplier: 2 gives a PNG twice the SVG's width and height. Default 1. */
  readonly scale?: number;
}

/**
 * Render a Vega-Lite spec to PNG bytes: SVG through Vega, then rasterised by resvg.
 *
 * resvg (Rust, shipped as an npm binary) replaces node-canvas, which needs Cairo and
 * Pango development packages to build. resvg must be told to load the system fonts,
 * and gets DejaVu Sans as the fallback family because it is the only family installed.
 */
export async function renderPng(spec: TopLevelSpec, options: PngOptions = {}): Promise<Uint8Array> {
  const scale = options.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new Error(`renderPng: scale must be a positive number, got ${scale}`);
  }
  const svg = await renderSvg(spec, options);
  const { Resvg } = await loadResvg();
  const resvg = new Resvg(svg, {
    font: { loadSystemFonts: true, defaultFontFamily: CHART_FONT, sansSerifFamily: CHART_FONT },
    fitTo: { mode: "zoom", value: scale },
  });
  return resvg.render().asPng();
}
