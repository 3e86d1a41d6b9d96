import { describe, expect, it } from "vitest";
import {
  BLAGENT,
  COSIL,
  aggregateRuns,
  locagentPreset,
  moduleIdOf,
  scoreLocalization,
  symbolNameOf,
} from "../src/index.js";

const gold = new Map([
  [
    "i1",
    {
      files: ["a.py", "b.py"],
      functions: ["a.py:A.f", "b.py:g"],
      spans: [{ path: "a.py", startLine: 10, endLine: 19 }],
    },
  ],
  ["i2", { files: ["c.py"], functions: ["c.py:C.__init__"], spans: [{ path: "c.py", startLine: 5, endLine: 5 }] }],
  ["i3", { files: [], functions: [], spans: [] }], // empty gold: excluded under unified
  ["i4", { files: ["d.py"], functions: ["d.py:h"], spans: [{ path: "d.py", startLine: 1, endLine: 4 }] }], // no prediction
]);
const predictions = new Map([
  [
    "i1",
    {
      files: ["x.py", "a.py", "b.py"],
      functions: ["a.py:A.f", "x.py:y"],
      locations: [{ path: "a.py", startLine: 15, endLine: 24 }],
    },
  ],
  ["i2", { files: ["c.py"], functions: ["c.py:C.__init__", "c.py:C"], locations: [] }],
  ["i3", { files: ["z.py"], functions: [] }],
  ["stray", { files: ["a.py"] }],
]);
const ids = ["i1", "i2", "i3", "i4"];

describe("scoreLocalization under the unified preset", () => {
  const report = scoreLocalization({ instanceIds: ids, gold, predictions });

  it("excludes empty gold, counts a missing prediction as 0, ignores ids outside the universe", () => {
    expect(report.preset).toBe("unified");
    expect(report.n).toBe(3);
    expect(report.excluded).toBe(1);
    expect(report.missingPredictions).toBe(1);
    const acc1 = report.metrics["file.acc@1"];
    expect(acc1?.value).toBeCloseTo(1 / 3, 15); // i1 0, i2 1, i4 0
    expect(Array.from(acc1?.perInstance ?? [])).toEqual([0, 1, Number.NaN, 0]);
    expect(report.metrics["file.acc@3"]?.value).toBeCloseTo(2 / 3, 15);
    expect(report.metrics["file.recall@1"]?.value).toBeCloseTo(1 / 3, 15);
    expect(report.metrics["file.mrr"]?.value).toBeCloseTo((1 / 2 + 1 + 0) / 3, 15);
    expect(report.metrics["file.map"]?.value).toBeCloseTo(((1 / 2 + 2 / 3) / 2 + 1 + 0) / 3, 15);
    expect(report.metrics["file.precision@3"]?.value).toBeCloseTo((2 / 3 + 1 / 3 + 0) / 3, 15);
  });

  it("derives module ids from function ids and scores function ids as written", () => {
    expect(report.metrics["function.hit@1"]?.value).toBeCloseTo(2 / 3, 15); // i1 a.py:A.f, i2 c.py:C.__init__
    expect(report.metrics["module.hit@1"]?.value).toBeCloseTo(2 / 3, 15); // a.py:A, c.py:C
    expect(report.metrics["function.acc@5"]?.n).toBe(3);
  });

  it("scores spans as line sets, macro and micro", () => {
    // i1: gold 10..19, predicted 15..24 → recall 0.5, precision 0.5; i2: nothing predicted; i4: missing.
    expect(report.metrics["span.coverageRecall"]?.value).toBeCloseTo(0.5 / 3, 15);
    expect(report.metrics["span.precision"]?.value).toBeCloseTo(0.5 / 3, 15);
    expect(report.metrics["span.tightness"]).toMatchObject({ n: 1, value: 5 / 15 });
    expect(report.metrics["span.coverageRecallMicro"]?.value).toBeCloseTo(5 / 15, 15);
    expect(report.metrics["span.precisionMicro"]?.value).toBeCloseTo(5 / 10, 15);
  });

  it("keeps every value a fraction in [0, 1], keyed <level>.<metric>[@k]", () => {
    for (const [key, metric] of Object.entries(report.metrics)) {
      expect(key).toMatch(/^(file|module|function|span)\.[A-Za-z]+(@\d+)?$/);
      expect(metric.value).toBeGreaterThanOrEqual(0);
      expect(metric.value).toBeLessThanOrEqual(1);
      expect(metric.definition).toMatch(/^unified: /);
    }
  });

  it("takes other k values on request", () => {
    const custom = scoreLocalization({ instanceIds: ids, gold, predictions, ks: [2] });
    expect(Object.keys(custom.metrics).filter((key) => key.startsWith("file."))).toEqual([
      "file.hit@2",
      "file.acc@2",
      "file.recall@2",
      "file.precision@2",
      "file.mrr",
      "file.map",
    ]);
  });
});

describe("peer presets", () => {
  it("locagent: exclusion list, recall over min(|G|, max k), MAP@k over k, '.__init__' stripped", () => {
    const report = scoreLocalization({ instanceIds: ids, gold, predictions, preset: locagentPreset(["i4"]) });
    expect(report.n).toBe(2);
    expect(report.excluded).toBe(2);
    expect(report.metrics["file.recall@1"]?.value).toBeCloseTo((0 / 2 + 1) / 2, 15);
    expect(report.metrics["file.map@3"]?.value).toBeCloseTo(((1 / 2 + 2 / 3) / 3 + 1 / 3) / 2, 15);
    // i2's predicted c.py:C.__init__ becomes c.py:C, which the gold (as written) does not hold.
    expect(report.metrics["function.acc@5"]?.value).toBeCloseTo(0 / 2, 15);
    expect(Object.keys(report.metrics).some((key) => key.startsWith("span."))).toBe(false);
  });

  it("blagent: acc@k and MRR over every instance with gold", () => {
    const firstFile = new Map([...gold].map(([id, g]) => [id, { files: g.files.slice(0, 1) }]));
    const report = scoreLocalization({ instanceIds: ids, gold: firstFile, predictions, preset: BLAGENT });
    expect(Object.keys(report.metrics)).toEqual(["file.acc@1", "file.acc@3", "file.acc@5", "file.acc@10", "file.mrr"]);
    expect(report.metrics["file.mrr"]?.value).toBeCloseTo((1 / 2 + 1 + 0) / 3, 15);
  });

  it("cosil: hit@k over the whole split, empty gold kept as a miss, functions by name alone", () => {
    const report = scoreLocalization({ instanceIds: ids, gold, predictions, preset: COSIL });
    expect(report.n).toBe(4);
    expect(report.metrics["file.hit@1"]?.value).toBe(1 / 4);
    expect(report.metrics["function.hit@1"]?.value).toBe(2 / 4);
    const noFiles = new Map([["i1", { files: [], functions: ["a.py:A.f"] }]]);
    expect(
      scoreLocalization({ instanceIds: ["i1"], gold, predictions: noFiles, preset: COSIL }).metrics["function.hit@1"]
        ?.value,
    ).toBe(0);
  });
});

describe("symbol ids and runs", () => {
  it("module and name of a symbol id", () => {
    expect(moduleIdOf("a/b.py:Class.method")).toBe("a/b.py:Class");
    expect(moduleIdOf("a/b.py:func")).toBe("a/b.py:func");
    expect(symbolNameOf("a/b.py::Class.method")).toBe("Class.method");
    expect(symbolNameOf("a/b.py:Class.method")).toBe("Class.method");
  });

  it("aggregates runs as mean ± sample standard deviation", () => {
    const run = (files: string[]) =>
      scoreLocalization({ instanceIds: ["i2"], gold, predictions: new Map([["i2", { files }]]) });
    const runs = aggregateRuns([run(["c.py"]), run(["x.py"]), run(["c.py"])]);
    expect(runs["file.acc@1"]).toMatchObject({ mean: 2 / 3, runs: 3, values: [1, 0, 1] });
    expect(runs["file.acc@1"]?.sd).toBeCloseTo(Math.sqrt(1 / 3), 15);
    expect(aggregateRuns([run(["c.py"])])["file.acc@1"]?.sd).toBeNull();
  });
});
