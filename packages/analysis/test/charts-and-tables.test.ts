import { renderSvg } from "@loclab/charts";
import { describe, expect, it } from "vitest";
import {
  breakdownRuns,
  breakdownTable,
  outcomeChart,
  outcomeTable,
  overlapHeatmap,
  type RunInput,
  type TaskSummary,
} from "../src/index.js";
import { taskSummary } from "./task-summary.js";

// The arquero tables and the two Vega-Lite charts, built with the charts package and rendered.

function task(instanceId: string, overrides: Partial<TaskSummary> = {}): TaskSummary {
  return taskSummary({
    instanceId,
    steps: 2,
    outputs: 2,
    toolCalls: { read_file: 2 },
    seconds: 60,
    promptTokens: 1000,
    completionTokens: 100,
    costUsd: 0.01,
    apiCalls: 2,
    ...overrides,
  });
}

const ids = ["x__x-1", "x__x-2", "x__x-3", "x__x-4"];
const runs: RunInput[] = [
  {
    name: "base",
    summaries: ids.map((id, i) => task(id, i === 3 ? { hasPatch: false } : {})),
    resolved: new Set(["x__x-1"]),
  },
  {
    name: "new",
    summaries: ids.map((id, i) => task(id, i === 2 ? { exitStatus: "step_limit" } : {})),
    resolved: new Set(["x__x-1", "x__x-2"]),
  },
];
const breakdown = breakdownRuns(runs, { base: "base" });

/** Visible texts of the groups with a class (as the charts package's own tests read SVG). */
const textsIn = (svg: string, groupClass: string) =>
  (svg.match(new RegExp(`<g class="[^"]*\\b${groupClass}\\b[^"]*"[^>]*>([\\s\\S]*?)</g>`, "g")) ?? []).flatMap(
    (group) => [...group.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? ""),
  );

/** Renders, failing on any Vega warning. */
async function render(spec: Parameters<typeof renderSvg>[0]): Promise<string> {
  const warnings: string[] = [];
  const svg = await renderSvg(spec, { onWarning: (message) => warnings.push(message) });
  expect(warnings).toEqual([]);
  return svg;
}

describe("tables", () => {
  it("has one breakdown row per run with the vs-base columns", () => {
    expect(breakdownTable(breakdown).objects()).toEqual([
      {
        run: "base",
        tasks: 4,
        solved: 1,
        outOfBudget: 0,
        wrongPatch: 2,
        noPatch: 1,
        medianCalls: 2,
        loops: 0,
        loopsFinishLength: 0,
        loopsRepeatedLine: 0,
        badPrefix: 0,
        noFile: 0,
        baseOnly: null,
        runOnly: null,
        pVsBase: null,
      },
      {
        run: "new",
        tasks: 4,
        solved: 2,
        outOfBudget: 1,
        wrongPatch: 1,
        noPatch: 0,
        medianCalls: 2,
        loops: 0,
        loopsFinishLength: 0,
        loopsRepeatedLine: 0,
        badPrefix: 0,
        noFile: 0,
        baseOnly: 0,
        runOnly: 1,
        pVsBase: 1,
      },
    ]);
  });

  it("has the outcome partition with time and tokens per category", () => {
    const rows = outcomeTable(breakdown).objects();
    expect(rows).toHaveLength(8);
    expect(rows[1]).toEqual({
      run: "base",
      category: "out of budget",
      order: 1,
      tasks: 0,
      share: 0,
      seconds: null,
      medianSeconds: null,
      tokens: null,
      medianTokens: null,
      costUsd: null,
    });
    expect(rows[2]).toEqual({
      run: "base",
      category: "wrong patch",
      order: 2,
      tasks: 2,
      share: 0.5,
      seconds: 120,
      medianSeconds: 60,
      tokens: 2200,
      medianTokens: 1100,
      costUsd: 0.02,
    });
  });
});

describe("charts", () => {
  it("stacks the outcome categories per run, in outcome order and colour", async () => {
    const spec = outcomeChart(breakdown);
    expect(spec).toMatchObject({
      mark: { type: "bar" },
      encoding: {
        y: { field: "run" },
        x: { field: "tasks", aggregate: "sum" },
        color: { field: "category", sort: ["solved", "out of budget", "wrong patch", "no patch"] },
        order: { field: "order" },
      },
    });
    const svg = await render(spec);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(textsIn(svg, "role-legend-label")).toEqual(["solved", "out of budget", "wrong patch", "no patch"]);
    expect([...svg.matchAll(/aria-roledescription="bar"/g)]).toHaveLength(8);
  });

  it("draws the overlap heatmap with runs in breakdown order", async () => {
    const spec = overlapHeatmap(breakdown);
    expect(spec).toMatchObject({
      encoding: { x: { field: "a", sort: ["base", "new"] }, y: { field: "b", sort: ["base", "new"] } },
    });
    const svg = await render(spec);
    expect([...svg.matchAll(/aria-roledescription="rect mark"/g)]).toHaveLength(4);
    expect(svg).toContain("Tasks solved by both runs");
    const jaccard = await render(overlapHeatmap(breakdown, { value: "jaccard" }));
    expect(jaccard).toContain("Jaccard");
  });
});
