import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TopLevelSpec } from "vega-lite";
import { barChart, renderPng, renderSvg, writeChart } from "../src/index.js";
import { assertWellFormedXml, svgSize } from "./svg.js";

const spec = barChart({
  data: [
    { k: "a", n: 1 },
    { k: "b", n: 2 },
  ],
  x: "k",
  y: "n",
  width: 120,
  height: 80,
});

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from the IHDR chunk, which the PNG spec requires to come first. */
function pngSize(png: Uint8Array): { width: number; height: number } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  expect(new TextDecoder().decode(png.subarray(12, 16))).toBe("IHDR");
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

describe("renderSvg", () => {
  it("returns one well-formed <svg> document with integer pixel dimensions", async () => {
    const svg = await renderSvg(spec);
    expect(svg.startsWith("<svg")).toBe(true);
    assertWellFormedXml(svg);
    const { width, height } = svgSize(svg);
    // The plot area plus axes: larger than the requested plot size.
    expect(width).toBeGreaterThan(120);
    expect(height).toBeGreaterThan(80);
  });

  it("leaves the spec and the caller's data rows untouched", async () => {
    const rows = [{ k: "a", n: 1 }];
    const own = barChart({ data: rows, x: "k", y: "n" });
    const before = JSON.stringify(own);
    await renderSvg(own);
    expect(Object.getOwnPropertySymbols(rows[0])).toEqual([]);
    expect(JSON.stringify(own)).toBe(before);
  });

  it("explains an unknown mark type instead of failing inside the compiler", async () => {
    await expect(renderSvg({ mark: "barr" } as unknown as TopLevelSpec)).rejects.toThrow(
      'invalid Vega-Lite spec: unknown mark type "barr" at spec.mark',
    );
  });

  it("names a misspelt field type and where it is, also inside layers", async () => {
    const layered = {
      layer: [{ mark: "bar" }, { mark: { type: "text" }, encoding: { text: { field: "n", type: "nominall" } } }],
    };
    await expect(renderSvg(layered as unknown as TopLevelSpec)).rejects.toThrow(
      'invalid Vega-Lite spec: unknown field type "nominall" at spec.layer[1].encoding.text.type',
    );
  });

  it("rejects a spec with no mark and passes on Vega-Lite's explanation", async () => {
    await expect(renderSvg({ data: { values: [] } } as unknown as TopLevelSpec)).rejects.toThrow(
      /^invalid Vega-Lite spec: Invalid specification .* "mark", "layer"/,
    );
  });

  it("rejects a non-object spec", async () => {
    await expect(renderSvg(null as unknown as TopLevelSpec)).rejects.toThrow(
      "invalid Vega-Lite spec: expected an object, got null",
    );
  });

  it("throws when Vega's dataflow fails instead of returning a blank chart", async () => {
    const broken = {
      data: { values: [{ a: 1 }] },
      transform: [{ calculate: "datum.missing.deeper", as: "b" }],
      mark: "bar",
      encoding: { x: { field: "b", type: "quantitative" } },
    } as TopLevelSpec;
    await expect(renderSvg(broken)).rejects.toThrow(
      "vega failed to render the chart: Cannot read properties of undefined",
    );
  });
});

describe("renderPng", () => {
  it("produces a PNG whose IHDR size is the SVG size times the scale", async () => {
    const { width, height } = svgSize(await renderSvg(spec));
    const png1 = await renderPng(spec);
    const png2 = await renderPng(spec, { scale: 2 });
    expect([...png1.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(pngSize(png1)).toEqual({ width, height });
    expect(pngSize(png2)).toEqual({ width: 2 * width, height: 2 * height });
  });

  it("rejects a non-positive scale", async () => {
    await expect(renderPng(spec, { scale: 0 })).rejects.toThrow("renderPng: scale must be a positive number, got 0");
  });
});

describe("writeChart", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "loclab-charts-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes the requested formats under a new directory and returns their paths", async () => {
    const base = join(dir, "nested", "bars");
    const paths = await writeChart(spec, base, { formats: ["svg", "png", "json"], scale: 1 });
    expect(paths).toEqual([`${base}.svg`, `${base}.png`, `${base}.json`]);
    assertWellFormedXml(await readFile(`${base}.svg`, "utf8"));
    expect([...(await readFile(`${base}.png`)).subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(JSON.parse(await readFile(`${base}.json`, "utf8"))).toEqual(spec);
  });

  it("writes only the formats asked for", async () => {
    const paths = await writeChart(spec, join(dir, "only-json"), { formats: ["json"] });
    expect(paths).toEqual([join(dir, "only-json.json")]);
  });
});
