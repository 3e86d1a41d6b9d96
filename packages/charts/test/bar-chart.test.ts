import { describe, expect, it } from "vitest";
import { barChart } from "../src/index.js";
import { markLabels, renderChecked as render, textsIn } from "./svg.js";

const repos = [
  { repo: "django/django", instances: 3 },
  { repo: "astropy/astropy", instances: 5 },
  { repo: "sympy/sympy", instances: 1 },
];

describe("barChart", () => {
  it("draws one bar per category, labelled with the category values", async () => {
    const svg = await render(barChart({ data: repos, x: "repo", y: "instances", title: "Instances" }));
    expect(markLabels(svg, "bar")).toHaveLength(3);
    // Default order: by category name.
    expect(textsIn(svg, "role-axis-label").slice(0, 3)).toEqual(["astropy/astropy", "django/django", "sympy/sympy"]);
    expect(textsIn(svg, "role-title-text")).toEqual(["Instances"]);
  });

  it("stacks one segment per colour value and draws a legend", async () => {
    const rows = [
      { repo: "a", benchmark: "lite", instances: 2 },
      { repo: "a", benchmark: "verified", instances: 1 },
      { repo: "b", benchmark: "lite", instances: 4 },
      { repo: "b", benchmark: "verified", instances: 3 },
    ];
    const svg = await render(barChart({ data: rows, x: "repo", y: "instances", color: "benchmark" }));
    expect(markLabels(svg, "bar")).toHaveLength(4);
    expect(textsIn(svg, "role-legend-label")).toEqual(["lite", "verified"]);
    // Stacked, not grouped: both segments of a repository share one x position.
    const xs = [...svg.matchAll(/aria-roledescription="bar" d="M([\d.]+),/g)].map((m) => m[1]);
    expect(new Set(xs).size).toBe(2);
  });

  it("puts categories on the vertical axis when horizontal, sorted by value", async () => {
    const spec = barChart({
      data: repos,
      x: "repo",
      y: { field: "instances", title: "instances" },
      horizontal: true,
      sort: "value-descending",
    });
    expect(spec).toMatchObject({
      encoding: { y: { field: "repo", sort: "-x" }, x: { field: "instances", aggregate: "sum" } },
    });
    const svg = await render(spec);
    const labels = textsIn(svg, "role-axis-label");
    expect(labels.slice(-3)).toEqual(["astropy/astropy", "django/django", "sympy/sympy"]);
  });

  it("uses field titles and types from field options", () => {
    const spec = barChart({
      data: repos,
      x: { field: "repo", title: "repository" },
      y: { field: "instances", type: "ordinal" },
    });
    expect(spec).toMatchObject({
      encoding: { x: { title: "repository", type: "nominal" }, y: { type: "ordinal", title: "instances" } },
    });
    // An ordinal value is not summed.
    expect(JSON.stringify(spec)).not.toContain("aggregate");
  });

  it("uses DejaVu Sans for every text element", async () => {
    const svg = await render(barChart({ data: repos, x: "repo", y: "instances" }));
    const families = new Set([...svg.matchAll(/<text[^>]*font-family="([^"]*)"/g)].map((m) => m[1]));
    expect([...families]).toEqual(["DejaVu Sans"]);
  });

  it("rejects a field that no row has, naming the chart and the field", () => {
    expect(() => barChart({ data: repos, x: "repos", y: "instances" })).toThrow(
      'barChart: field "repos" is not in any data row (fields of the first row: repo, instances)',
    );
  });
});
