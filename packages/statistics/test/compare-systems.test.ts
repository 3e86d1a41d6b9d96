import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { describe, expect, it } from "vitest";
import {
  compareSystems,
  exactMcNemar,
  holmAdjust,
  leaderboardSignificance,
  neighbourSignificance,
  pairedMinimumDetectableEffect,
  pairedSampleSize,
  pairedTable,
  pairwiseMatrixRows,
  parseResolvedMatrix,
  wilsonInterval,
} from "../src/index.js";

describe("compareSystems on a hand-made matrix", () => {
  const matrix = parseResolvedMatrix(
    ["instance_id,A,B,C", "x__x-1,1,0,1", "x__x-2,1,0,0", "y__y-1,1,1,0", "y__y-2,0,0,0", "z__z-1,1,0,1"].join("\n"),
    { source: "hand.csv" },
  );
  const comparison = compareSystems(matrix);

  it("summarizes each system: resolved, rate, Wilson interval, clustered SE", () => {
    expect(comparison.systems.map((s) => [s.name, s.resolved, s.n, s.rate])).toEqual([
      ["A", 4, 5, 0.8],
      ["B", 1, 5, 0.2],
      ["C", 2, 5, 0.4],
    ]);
    const { lower, upper } = wilsonInterval({ successes: 4, n: 5 });
    expect(comparison.systems[0]?.wilson).toEqual([lower, upper]);
    // Clusters x, y, z: residuals of A = (0.2 + 0.2), (0.2 − 0.8), 0.2 → Σ² = 0.16 + 0.36 + 0.04.
    expect(comparison.systems[0]?.clusteredSE).toBeCloseTo((1 / 5) * Math.sqrt((3 / 2) * 0.56), 15);
  });

  it("compares every pair with exact McNemar and Holm-adjusts over all pairs", () => {
    expect(comparison.pairs.map((p) => [p.a, p.b, p.aOnly, p.bOnly])).toEqual([
      ["A", "B", 3, 0],
      ["A", "C", 2, 0],
      ["B", "C", 1, 2],
    ]);
    const raw = comparison.pairs.map((p) => exactMcNemar({ b: p.aOnly, c: p.bOnly }).p);
    expect(comparison.pairs.map((p) => p.p)).toEqual(raw);
    expect(comparison.pairs.map((p) => p.pHolm)).toEqual(holmAdjust(raw));
    expect(compareSystems(matrix, { holm: false }).pairs.map((p) => p.pHolm)).toEqual(raw);
  });

  it("ranks neighbours by rate and flags significant gaps", () => {
    expect(neighbourSignificance(comparison).map((n) => [n.upper, n.lower, n.significant])).toEqual([
      ["A", "C", false],
      ["C", "B", false],
    ]);
    expect(neighbourSignificance(comparison, { alpha: 1.01 }).every((n) => n.significant)).toBe(true);
  });
});

describe("compareSystems on the SWE-bench Lite leaderboard matrix", () => {
  const text = readFileSync(join(resolveDataDir(), "resolved", "lite.csv"), "utf8");
  const matrix = parseResolvedMatrix(text, { source: "lite.csv" });
  const comparison = compareSystems(matrix);

  it("has 42 systems and 861 pairs, each equal to the paired table built from id-keyed maps", () => {
    expect(comparison.systems).toHaveLength(42);
    expect(comparison.pairs).toHaveLength(861);
    const byName = (name: string) =>
      new Map(matrix.instanceIds.map((id, i) => [id, matrix.outcomes[matrix.systems.indexOf(name)]?.[i] === 1]));
    for (const pair of comparison.pairs.filter((_, i) => i % 97 === 0)) {
      const table = pairedTable({ a: byName(pair.a), b: byName(pair.b) });
      expect([pair.aOnly, pair.bOnly]).toEqual([table.aOnly, table.bOnly]);
    }
  });

  it("keeps every p-value in [0, 1] with Holm never below the raw value", () => {
    for (const pair of comparison.pairs) {
      expect(pair.p).toBeGreaterThanOrEqual(0);
      expect(pair.pHolm).toBeGreaterThanOrEqual(pair.p);
      expect(pair.pHolm).toBeLessThanOrEqual(1);
    }
  });
});

describe("leaderboardSignificance", () => {
  it("counts significant neighbours and sizes a paired study from the neighbours' discordance", () => {
    const matrix = parseResolvedMatrix(readFileSync(join(resolveDataDir(), "resolved", "lite.csv"), "utf8"), {
      source: "lite.csv",
    });
    const result = leaderboardSignificance(matrix);
    expect(result.neighbours).toHaveLength(41);
    expect(result.significantNeighbours).toBe(result.neighbours.filter((pair) => pair.pHolm < 0.05).length);
    // ψ is the median of (A only + B only) / n over the 41 neighbouring pairs.
    const psis = result.neighbours
      .map(({ upper, lower }) =>
        result.comparison.pairs.find((p) => (p.a === upper && p.b === lower) || (p.a === lower && p.b === upper)),
      )
      .map((pair) => ((pair?.aOnly ?? 0) + (pair?.bOnly ?? 0)) / 300)
      .sort((a, b) => a - b);
    expect(result.medianNeighbourPsi).toBe(psis[20]);
    expect(result.tasksNeeded).toBe(pairedSampleSize({ psi: result.medianNeighbourPsi, delta: 0.0595 }).n);
    expect(result.minimumDetectableEffect).toBeCloseTo(
      pairedMinimumDetectableEffect({ psi: result.medianNeighbourPsi, n: 300 }).delta,
      15,
    );
  });
});

describe("pairwiseMatrixRows", () => {
  it("is symmetric with a null diagonal, ordered by rate", () => {
    const matrix = parseResolvedMatrix(
      ["instance_id,A,B,C", "x__x-1,1,0,1", "y__y-1,1,1,0", "z__z-1,0,0,1"].join("\n"),
      { source: "m.csv" },
    );
    const { order, rows } = pairwiseMatrixRows(compareSystems(matrix));
    expect(order).toEqual(["A", "C", "B"]);
    expect(rows).toHaveLength(9);
    const at = (a: string, b: string) => rows.find((row) => row.a === a && row.b === b)?.pHolm;
    expect(at("A", "A")).toBeNull();
    expect(at("A", "B")).toBe(at("B", "A"));
    expect(at("A", "B")).not.toBeNull();
  });
});

describe("compareSystems on small or unusual matrices (issue 12 sweep)", () => {
  it("one repository: no clustered SE (null), but rates, intervals and pairs as usual", () => {
    const matrix = parseResolvedMatrix("instance_id,a,b\ndjango__django-1,1,0\ndjango__django-2,1,1\n", {
      source: "one-repo.csv",
    });
    const comparison = compareSystems(matrix);
    expect(comparison.systems.map((system) => system.clusteredSE)).toEqual([null, null]);
    expect(comparison.pairs[0]).toMatchObject({ aOnly: 1, bOnly: 0, p: 1 });
  });

  it("ids not shaped owner__repo-N are clusters of their own", () => {
    const matrix = parseResolvedMatrix("instance_id,a,b\ntask-a,1,0\ntask-b,0,0\nthird,1,1\n", { source: "ids.csv" });
    const [a] = compareSystems(matrix).systems;
    // Three singleton clusters: SE = (1/n)·sqrt(C/(C−1)·Σ_c (s_c − s̄)²) with s̄ = 2/3.
    const mean = 2 / 3;
    const expected = (1 / 3) * Math.sqrt((3 / 2) * ((1 - mean) ** 2 + (0 - mean) ** 2 + (1 - mean) ** 2));
    expect(a?.clusteredSE).toBeCloseTo(expected, 14);
  });
});
