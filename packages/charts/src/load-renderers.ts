/**
 * Lazy loaders for the rendering libraries.
 *
 * Why not plain `import * as vega from "vega"` at the top of the file: vega and
 * vega-lite both reach `vega-canvas`, whose Node build does
 * `NodeCanvas = await import('canvas')` at top level. Node 20 can `require()` an ES
 * module only if its graph has no top-level await, and the tslab notebook kernel
 * compiles cells to CommonJS and `require()`s `@loclab/charts`. A static import would
 * therefore make the whole package unloadable from notebooks
 * (ERR_REQUIRE_ASYNC_MODULE). A dynamic `import()` inside the async render functions
 * is allowed from any module, so only the spec builders' *types* are imported
 * statically (`import type`, erased at compile time).
 *
 * resvg-js is CommonJS with a native binding; it is loaded lazily too so that building
 * specs never depends on the binary being present.
 */
let vegaModule: Promise<typeof import("vega")> | undefined;
let vegaLiteModule: Promise<typeof import("vega-lite")> | undefined;
let resvgModule: Promise<typeof import("@resvg/resvg-js")> | undefined;

export function loadVega(): Promise<typeof import("vega")> {
  vegaModule ??= import("vega");
  return vegaModule;
}

export function loadVegaLite(): Promise<typeof import("vega-lite")> {
  vegaLiteModule ??= import("vega-lite");
  return vegaLiteModule;
}

export function loadResvg(): Promise<typeof import("@resvg/resvg-js")> {
  resvgModule ??= import("@resvg/resvg-js");
  return resvgModule;
}
