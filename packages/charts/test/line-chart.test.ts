import { describe, expect, it } from "vitest";
import { lineChart, renderSvg } from "../src/index.js";
import { assertWellFormedXml, markLabels, textsIn } from "./svg.js";

const curves = [1, 3, 5, 10].flatMap((k) => [
  { system: "a", k, recall: 0.5 + k / 40 },
  { system: "b", k, recall: 0.3 + k / 50 },
]);

describe("lineChart", () => {
  it("draws one line per colour value, with a point per row and a legend", async () => {
    const warnings: string[] = [];
    const svg = await renderSvg(
      lineChart({ data: curves, x: "k", y: "recall", color: "system", yDomain: [0, 1], title: "Recall@k" }),
      {
        onWarning: (message) => warnings.push(message),
      },
    );
    expect(warnings).toEqual([]);
    assertWellFormedXml(svg);
    // Vega labels points but not line paths: count the line marks by their role.
    expect(svg.match(/aria-roledescription="line mark"/g)).toHaveLength(2);
    expect(markLabels(svg, "point")).toHaveLength(8);
    expect(textsIn(svg, "role-legend-label")).toEqual(["a", "b"]);
    expect(textsIn(svg, "role-title-text")).toEqual(["Recall@k"]);
  });

  it("fixes the value axis when asked and names a missing field", () => {
    expect(lineChart({ data: curves, x: "k", y: "recall", yDomain: [0, 1] })).toMatchObject({
      encoding: { y: { scale: { domain: [0, 1] } } },
    });
    expect(() => lineChart({ data: curves, x: "k", y: "recal" })).toThrow(
      'lineChart: field "recal" is not in any data row',
    );
  });
});

describe("lineChart panels", () => {
  it("one panel per column value, the colours shared", async () => {
    const { lineChart } = await import("../src/index.js");
    const { renderChecked, textsIn } = await import("./svg.js");
    const data = ["lite", "verified"].flatMap((benchmark) =>
      [1, 2].map((k) => ({ system: "s", benchmark, k, recall: k / 4 })),
    );
    const svg = await renderChecked(
      lineChart({ data, x: "k", y: "recall", color: "system", column: { field: "benchmark", title: "benchmark" } }),
    );
    expect(textsIn(svg, "role-title-text")).toEqual(expect.arrayContaining(["lite", "verified"]));
  });
});
