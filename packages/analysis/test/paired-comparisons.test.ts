import { describe, expect, it } from "vitest";
import { ArtifactHeaderSchema } from "@loclab/schemas";
import {
  breakdownArtifact,
  breakdownJson,
  breakdownRuns,
  overlapTable,
  pairwiseTable,
  type RunInput,
  type TaskSummary,
  taskTable,
} from "../src/index.js";
import { taskSummary } from "./task-summary.js";

// vs. base, the overlap matrix, everSolved and the pairwise tests, on runs built from summaries
// (pure: no files), against hand-counted tables and exact p-values.

function task(instanceId: string, patch = true): TaskSummary {
  return taskSummary({ instanceId, hasPatch: patch, toolCalls: { run_command: 1 }, apiCalls: 1 });
}

const ids = Array.from({ length: 10 }, (_, i) => `t__t-${i}`);
const run = (name: string, solved: number[]): RunInput => ({
  name,
  summaries: ids.map((id) => task(id)),
  resolved: new Set(solved.map((i) => ids[i] as string)),
});

// base solves 0–4; A solves 0, 1, 5–8 (base only 2, A only 4: FGL's 2/4 → 0.69); B solves 0–4 and 9.
const base = run("base", [0, 1, 2, 3, 4]);
const a = run("A", [0, 1, 5, 6, 7, 8]);
const b = run("B", [0, 1, 2, 3, 4, 9]);

describe("vs. base", () => {
  it("counts base only / run only on the shared tasks and gives the exact McNemar p", () => {
    const breakdown = breakdownRuns([base, a, b], { base: "base" });
    expect(breakdown.rows.map((r) => r.vsBase)).toEqual([
      null,
      { base: "base", n: 10, baseOnly: 3, runOnly: 4, p: 1 },
      { base: "base", n: 10, baseOnly: 0, runOnly: 1, p: 1 },
    ]);
    const fgl = breakdownRuns([run("base", [0, 1, 2, 3]), run("A", [0, 1, 4, 5, 6, 7])], { base: "base" });
    // FGL Table 4's check (docs/definitions.md §7): 2 / 4 → 0.69.
    expect(fgl.rows[1]?.vsBase).toMatchObject({ baseOnly: 2, runOnly: 4 });
    expect(fgl.rows[1]?.vsBase?.p).toBeCloseTo(0.6875, 12);
  });

  it("compares on the shared tasks when the runs' task sets differ", () => {
    const short: RunInput = {
      name: "short",
      summaries: ids.slice(0, 4).map((id) => task(id)),
      resolved: new Set([ids[3] as string]),
    };
    const breakdown = breakdownRuns([base, short], { base: "base" });
    expect(breakdown.rows[1]?.vsBase).toMatchObject({ n: 4, baseOnly: 3, runOnly: 0 });
    expect(breakdown.rows[1]?.vsBase?.p).toBeCloseTo(0.25, 12);
  });
});

describe("overlap and everSolved", () => {
  const breakdown = breakdownRuns([base, a, b], { base: "base" });

  it("gives both-solved counts per pair, each run's solved count on the diagonal", () => {
    expect(breakdown.overlap.runs).toEqual(["base", "A", "B"]);
    expect(breakdown.overlap.both).toEqual([
      [5, 2, 5],
      [2, 6, 2],
      [5, 2, 6],
    ]);
  });

  it("tests every pair with exact McNemar and Holm's adjustment", () => {
    const pairs = breakdown.overlap.pairs.map(({ a: x, b: y, aOnly, bOnly, p, pHolm, jaccard }) => ({
      x,
      y,
      aOnly,
      bOnly,
      p,
      pHolm,
      jaccard,
    }));
    // A vs B: 4 / 4 → p 1; base vs A: 3 / 4 → 1; base vs B: 0 / 1 → 1.
    expect(pairs).toEqual([
      { x: "base", y: "A", aOnly: 3, bOnly: 4, p: 1, pHolm: 1, jaccard: 2 / 9 },
      { x: "base", y: "B", aOnly: 0, bOnly: 1, p: 1, pHolm: 1, jaccard: 5 / 6 },
      { x: "A", y: "B", aOnly: 4, bOnly: 4, p: 1, pHolm: 1, jaccard: 2 / 10 },
    ]);
    const lopsided = breakdownRuns([
      run("none", []),
      run("all", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
      run("half", [0, 1, 2, 3, 4]),
    ]);
    // 0 / 10 → 2^-9; 0 / 5 → 2^-4; 5 / 0 → 2^-4; Holm multiplies by 3, 2, 2 (running max).
    const expected = [
      [2 ** -9, 3 * 2 ** -9],
      [2 ** -4, 2 * 2 ** -4],
      [2 ** -4, 2 * 2 ** -4],
    ];
    lopsided.overlap.pairs.forEach((pair, k) => {
      expect(pair.p / (expected[k]?.[0] as number)).toBeCloseTo(1, 12);
      expect(pair.pHolm / (expected[k]?.[1] as number)).toBeCloseTo(1, 12);
    });
  });

  it("counts the union of solved tasks", () => {
    expect(breakdown.everSolved).toBe(10);
    expect(breakdown.everSolvedIds).toEqual(ids);
  });

  it("feeds the tables and the CLI's JSON", () => {
    expect(overlapTable(breakdown).numRows()).toBe(9);
    expect(overlapTable(breakdown).objects()[1]).toMatchObject({
      a: "base",
      b: "A",
      both: 2,
      aOnly: 3,
      bOnly: 4,
      p: 1,
    });
    expect(overlapTable(breakdown).objects()[3]).toMatchObject({ a: "A", b: "base", both: 2, aOnly: 4, bOnly: 3 });
    expect(pairwiseTable(breakdown).numRows()).toBe(3);
    expect(taskTable(breakdown).numRows()).toBe(30);
    const json = breakdownJson(breakdown);
    expect(json.runs[1]).toEqual({
      run: "A",
      tasks: 10,
      solved: 6,
      outOfBudget: 0,
      wrongPatch: 4,
      noPatch: 0,
      medianCalls: 1,
      loops: 0,
      loopsFinishLength: 0,
      loopsRepeatedLine: 0,
      badPrefix: 0,
      noFile: 0,
      vsBase: { baseOnly: 3, runOnly: 4, p: 1 },
    });
    expect(json.everSolved).toBe(10);
    expect(json.overlap.both[0]).toEqual([5, 2, 5]);
  });

  it("saves as a versioned artifact with provenance", () => {
    const provenance = { tool: "loclab", toolVersion: "0.1.0", createdAt: "2026-01-01T00:00:00.000Z" };
    const artifact = breakdownArtifact(breakdown, provenance, { notes: { seed: 1 } });
    expect(
      ArtifactHeaderSchema.parse({
        schemaVersion: artifact.schemaVersion,
        kind: artifact.kind,
        provenance: artifact.provenance,
      }),
    ).toMatchObject({ kind: "loclab.trajectory-breakdown" });
    expect(artifact.data.rows[1]?.ids.solved).toEqual(["t__t-0", "t__t-1", "t__t-5", "t__t-6", "t__t-7", "t__t-8"]);
    expect(JSON.parse(JSON.stringify(artifact)).data.notes).toEqual({ seed: 1 });
  });
});
