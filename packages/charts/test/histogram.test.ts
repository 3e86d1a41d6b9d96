import { describe, expect, it } from "vitest";
import { histogram, renderSvg } from "../src/index.js";
import { assertWellFormedXml, markLabels, textsIn } from "./svg.js";

describe("histogram", () => {
  const goldFiles = [1, 1, 2, 3, 3, 3, 7].map((goldFiles) => ({ goldFiles }));

  it("counts rows per unit bin with { step: 1 }", async () => {
    const spec = histogram({
      data: goldFiles,
      field: { field: "goldFiles", title: "gold files" },
      bins: { step: 1 },
      countTitle: "instances",
    });
    const svg = await renderSvg(spec, { onWarning: (message) => expect.fail(message) });
    assertWellFormedXml(svg);
    // Empty bins draw nothing: 4 occupied bins out of [1, 8).
    expect(markLabels(svg, "bar")).toEqual([
      "gold files: 1 – 2; instances: 2",
      "gold files: 2 – 3; instances: 1",
      "gold files: 3 – 4; instances: 3",
      "gold files: 6 – 7; instances: 1",
    ]);
    expect(textsIn(svg, "role-axis-title")).toEqual(["gold files", "instances"]);
  });

  it("passes a bin count through as maxbins", () => {
    expect(histogram({ data: goldFiles, field: "goldFiles", bins: 5 })).toMatchObject({
      encoding: { x: { bin: { maxbins: 5 } }, y: { aggregate: "count" } },
    });
  });
});
