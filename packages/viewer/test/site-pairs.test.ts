import { clopperPearsonInterval, exactMcNemar } from "@loclab/statistics";
import { describe, expect, it } from "vitest";
import { acrossSeedsOfCells } from "../src/across-seeds.js";
import { cellPairs } from "../src/site-pairs.js";
import { appendRow, emptyRows, tableCells } from "../src/site-table.js";
import { noteKind } from "../src/trajectory-view.js";

describe("pairs of cells and seeds", () => {
  it("every pair's discordant tasks over the instances both have, exact McNemar and θ's exact interval", () => {
    // Cells A and B have all 10 instances: A solves 1–6, B solves 5–10. C has 1–8 and solves them all, but its t-3 has no value.
    const instance: string[] = [];
    const cell: string[] = [];
    const binary: (number | null)[] = [];
    for (let i = 1; i <= 10; i++) {
      instance.push(`t-${i}`, `t-${i}`);
      cell.push("A", "B");
      binary.push(i <= 6 ? 1 : 0, i >= 5 ? 1 : 0);
      if (i <= 8) {
        instance.push(`t-${i}`);
        cell.push("C");
        binary.push(i === 3 ? null : 1);
      }
    }
    const pairs = cellPairs({ instance, cell, binary });
    expect(pairs.map((pair) => `${pair.a}-${pair.b}`)).toEqual(["A-B", "A-C", "B-C"]);
    const ab = pairs[0]!;
    // A only: 1–4; B only: 7–10.
    expect(ab).toMatchObject({ n: 10, aOnly: 4, bOnly: 4, aRate: 0.6, bRate: 0.6 });
    expect(ab.p).toBe(exactMcNemar({ b: 4, c: 4 }).p);
    const interval = clopperPearsonInterval({ successes: 4, n: 8 });
    expect([ab.thetaLower, ab.thetaUpper]).toEqual([interval.lower, interval.upper]);
    // A against C: the 7 instances C has a value for (t-3 is null): C solves all; A misses 7 and 8.
    expect(pairs[1]).toMatchObject({ n: 7, aOnly: 0, bOnly: 2, p: exactMcNemar({ b: 0, c: 2 }).p });
    // No discordant pair: no p-value, no interval.
    const same = cellPairs({ instance: ["x", "x"], cell: ["A", "B"], binary: [1, 1] });
    expect(same[0]).toMatchObject({ aOnly: 0, bOnly: 0, p: null, thetaLower: null, thetaUpper: null });
  });

  it("mean ± sample SD over the seeds of each control (and arm)", () => {
    const cell = (name: string, value: number) => ({
      cell: name,
      seed: Number(name.split("/")[0]!.slice(5)),
      control: name.split("/")[1]!,
      arm: null,
      model: null,
      n: 1,
      metrics: { acc1: value },
      outcomes: {},
    });
    const rows = acrossSeedsOfCells([cell("seed-1/plain", 0.8), cell("seed-2/plain", 0.6), cell("seed-1/masked", 0.5)]);
    expect(rows.map((row) => [row.group, row.metric, row.seeds, row.sd === null])).toEqual([
      ["plain", "acc1", 2, false],
      ["masked", "acc1", 1, true],
    ]);
    expect(rows[0]!.mean).toBeCloseTo(0.7, 12);
    // Sample SD of 0.8 and 0.6: √(((0.1)² + (0.1)²) / 1).
    expect(rows[0]!.sd).toBeCloseTo(Math.sqrt(0.02), 12);
    expect(rows[1]!.mean).toBe(0.5);
  });

  it("harness notes: budgets, recoveries and errors as the localizer writes them", () => {
    expect(noteKind("wall budget: the attempt's wall budget ran out during the model call, which was cancelled")).toBe(
      "budget",
    );
    expect(noteKind("forced_final: last turn: only submit_localization offered")).toBe("budget");
    expect(
      noteKind("context: the prompt (about 9000 tokens) is over the limit of 8000 with every old observation cut"),
    ).toBe("budget");
    expect(noteKind("context_truncated: 2 oldest observation(s) cut to a stub")).toBe("recovery");
    expect(noteKind('repeated_call: repo_tree {"depth":1}')).toBe("recovery");
    expect(noteKind("malformed_call: the arguments of connected_tree do not fit")).toBe("recovery");
    expect(noteKind("recovery: no tool call; nudged")).toBe("recovery");
    expect(noteKind("model error: model request rejected (HTTP 400)")).toBe("error");
  });
});

describe("the cells of a table", () => {
  it("one pass: each cell's parts from its first row, its outcomes, n over the counted ones, the means of the averaged columns", () => {
    const rows = {
      cell: ["seed-1/plain", "seed-1/plain", "seed-2/plain", "seed-1/plain"],
      turns: [2, 4, 7, null],
      outcome: ["finished", "finished", "open (infra_error)", "forced_final"],
    };
    const cells = tableCells(rows, {
      averaged: ["turns"],
      outcomeOf: (row) => rows.outcome[row]!,
      counts: (outcome) => !outcome.startsWith("open"),
      partsOf: (cell, row) => ({ seed: row, control: cell.split("/")[1]!, arm: null, model: null }),
      metricsOf: (cell) => (cell === "seed-1/plain" ? { "file.acc@1": 0.5 } : undefined),
    });
    expect(cells).toEqual([
      {
        cell: "seed-1/plain",
        seed: 0,
        control: "plain",
        arm: null,
        model: null,
        n: 3,
        metrics: { "file.acc@1": 0.5, turns: 3 },
        outcomes: { finished: 2, forced_final: 1 },
      },
      {
        cell: "seed-2/plain",
        seed: 2,
        control: "plain",
        arm: null,
        model: null,
        n: 0,
        metrics: { turns: 7 },
        outcomes: { "open (infra_error)": 1 },
      },
    ]);
  });

  it("appendRow fills every column, t included, and refuses a row that leaves one out (it would shift against the others)", () => {
    const rows = emptyRows([
      { name: "instance", type: "string", description: "" },
      { name: "turns", type: "number", description: "" },
    ]);
    appendRow(rows, { instance: "a-1", turns: null, t: 0 });
    expect(rows).toEqual({ instance: ["a-1"], turns: [null], t: [0] });
    expect(() => appendRow(rows, { instance: "a-2", t: 1 })).toThrow("row 1: no value for column turns");
    expect(rows.instance).toEqual(["a-1"]);
  });
});
