import { describe, expect, it } from "vitest";
import { heatmap } from "../src/index.js";
import { markLabels, renderChecked as render, textsIn } from "./svg.js";

const agents = ["A", "B", "C"];
/** A symmetric pairwise p-value matrix with an empty diagonal, as a test would give it. */
const pValues: Record<string, number> = { "A|B": 0.04, "A|C": 0.5, "B|C": 0.001 };
const pairs = agents.flatMap((a) =>
  agents.map((b) => ({ a, b, p: a === b ? null : (pValues[`${a}|${b}`] ?? pValues[`${b}|${a}`]) })),
);

describe("heatmap", () => {
  it("draws a cell and a label per non-null value, leaving the diagonal blank", async () => {
    const svg = await render(heatmap({ data: pairs, x: "a", y: "b", value: "p", domain: [0, 1] }));
    expect(markLabels(svg, "rect mark")).toHaveLength(6);
    expect(markLabels(svg, "text mark")).toHaveLength(6);
    expect(textsIn(svg, "layer_1_marks").sort()).toEqual(["0.001", "0.001", "0.04", "0.04", "0.5", "0.5"]);
  });

  it("prints integer values (overlap counts) without decimals", async () => {
    const counts = [
      { a: "A", b: "A", n: 12 },
      { a: "A", b: "B", n: 7 },
      { a: "B", b: "A", n: 7 },
      { a: "B", b: "B", n: 30 },
    ];
    const svg = await render(heatmap({ data: counts, x: "a", y: "b", value: "n" }));
    expect(textsIn(svg, "layer_1_marks").sort()).toEqual(["12", "30", "7", "7"]);
  });

  it("writes labels in white on the dark half of the colour scale, honouring reverse", async () => {
    const data = [
      { a: "A", b: "A", v: 0.1 },
      { a: "B", b: "B", v: 0.9 },
    ];
    const fills = async (reverse: boolean): Promise<string[]> => {
      const svg = await render(heatmap({ data, x: "a", y: "b", value: "v", domain: [0, 1], reverse }));
      return [...svg.matchAll(/aria-roledescription="text mark"[^>]*fill="(\w+)">([^<]*)</g)].map(
        (m) => `${m[2]}:${m[1]}`,
      );
    };
    expect(await fills(false)).toEqual(["0.1:black", "0.9:white"]);
    expect(await fills(true)).toEqual(["0.1:white", "0.9:black"]);
  });

  it("applies one explicit order to both axes and can omit labels", async () => {
    const spec = heatmap({ data: pairs, x: "a", y: "b", value: "p", order: ["C", "B", "A"], labels: false });
    const svg = await render(spec);
    expect(markLabels(svg, "text mark")).toHaveLength(0);
    expect(textsIn(svg, "role-axis-label")).toEqual(["C", "B", "A", "C", "B", "A"]);
  });
});

describe("heatmap for p-values (issue 12, item 20)", () => {
  const longName = "20240721_amazon-q-developer-agent-20240719-dev";
  const data = [
    { a: longName, b: "short", p: 0.01 },
    { a: "short", b: longName, p: 0.3 },
  ];
  it("bins at the significance level with a legend that says so, and never cuts a system name", async () => {
    const spec = heatmap({
      data,
      x: "a",
      y: "b",
      value: { field: "p", title: "Holm-adjusted p: below or above 0.05" },
      thresholds: [0.05],
      reverse: true,
      labels: false,
    });
    const svg = await render(spec);
    expect(textsIn(svg, "role-axis-label")).toContain(longName);
    expect(textsIn(svg, "role-legend-label").join(" ")).toContain("0.05");
    expect(textsIn(svg, "role-legend-title")).toEqual(["Holm-adjusted p: below or above 0.05"]);
  });
});
