import type { TopLevelSpec } from "vega-lite";
import { compileToVega } from "./compile-spec.js";
import { loadVega } from "./load-renderers.js";
import { createRenderLog } from "./render-log.js";
import { defaultOnWarning, type RenderOptions } from "./render-options.js";

/**
 * Render a Vega-Lite spec to a standalone SVG document, headless.
 *
 * Uses Vega's "none" renderer (no DOM, no canvas): text widths are estimated, which is
 * why the charts name a font (DejaVu Sans) whose metrics are close to the estimate.
 * Throws if the spec is invalid or if Vega logged an error while evaluating the
 * dataflow (e.g. a data URL that cannot be loaded), instead of returning a blank chart.
 */
export async function renderSvg(spec: TopLevelSpec, options: RenderOptions = {}): Promise<string> {
  const log = createRenderLog(options.onWarning ?? defaultOnWarning);
  // Vega tags every inline data row with a Symbol(vega_id) property, in place: render a
  // copy so neither the spec nor the caller's row objects are modified.
  const vegaSpec = await compileToVega(structuredClone(spec), log);
  const vega = await loadVega();
  const view = new vega.View(vega.parse(vegaSpec), { renderer: "none", logger: log.logger });
  try {
    const svg = await view.toSVG();
    if (log.errors.length > 0) {
      throw new Error(`vega failed to render the chart: ${log.errors.join("; ")}`);
    }
    return svg;
  } finally {
    // Releases timers and dataflow listeners; otherwise a long notebook session leaks views.
    view.finalize();
  }
}
