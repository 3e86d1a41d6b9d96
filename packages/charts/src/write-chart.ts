import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { TopLevelSpec } from "vega-lite";
import { renderPng } from "./render-png.js";
import { renderSvg } from "./render-svg.js";
import type { RenderOptions } from "./render-options.js";

export type ChartFormat = "svg" | "png" | "json";

export interface WriteChartOptions extends RenderOptions {
  /** Files to write. Default: all three. "json" is the Vega-Lite spec itself, so a figure can be re-rendered or edited later. */
  readonly formats?: readonly ChartFormat[];
  /** PNG pixel density (see renderPng). Default 2, sharp enough for slides and papers. */
  readonly scale?: number;
}

/**
 * Write a chart next to the results it shows: `<basePath>.svg`, `.png`, `.json`.
 * Creates the parent directory. Returns the written paths in `formats` order.
 *
 * @example await writeChart(spec, "results/gold-files", { formats: ["svg", "json"] })
 */
export async function writeChart(
  spec: TopLevelSpec,
  basePath: string,
  options: WriteChartOptions = {},
): Promise<string[]> {
  const formats = options.formats ?? ["svg", "png", "json"];
  await mkdir(dirname(basePath), { recursive: true });
  const written: string[] = [];
  for (const format of formats) {
    const path = `${basePath}.${format}`;
    if (format === "svg") await writeFile(path, await renderSvg(spec, options));
    else if (format === "png") await writeFile(path, await renderPng(spec, { ...options, scale: options.scale ?? 2 }));
    else if (format === "json") await writeFile(path, `${JSON.stringify(spec, null, 2)}\n`);
    else throw new Error(`writeChart: unknown format "${String(format)}" (expected svg, png or json)`);
    written.push(path);
  }
  return written;
}
