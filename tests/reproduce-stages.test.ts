import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { parseResolvedMatrix } from "@loclab/statistics";
import { significanceStage, trajectoriesStage } from "@loclab/reproduce";
import type { Provenance } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import { scratch } from "./helpers.js";

// The stages of `loclab reproduce` called as a notebook calls them: no CLI, a provenance and a
// progress sink of the caller's, the files written and the rows returned (the CLI prints them).
const provenance = (inputs: Record<string, unknown>): Provenance => ({
  tool: "notebook",
  toolVersion: "0",
  createdAt: "2026-12-03T00:00:00.000Z",
  inputs,
});

describe("@loclab/reproduce stages, called directly", () => {
  it("significance: one row per leaderboard matrix, its CSVs written, the caller's provenance on the artifact", async () => {
    const out = scratch("loclab-stage-significance-");
    const messages: string[] = [];
    const result = await significanceStage({ out, provenance, progress: (message) => messages.push(message) });
    const litePath = join(resolveDataDir(), "resolved/lite.csv");
    const lite = parseResolvedMatrix(readFileSync(litePath, "utf8"), { source: litePath });
    expect(result.rows.map((row) => (row as { benchmark: string }).benchmark)).toEqual(["lite", "verified"]);
    expect(result.rows[0]).toMatchObject({ systems: lite.systems.length, tasks: lite.instanceIds.length });
    expect(messages[0]).toMatch(/^lite: \d+ systems, \d+ pairs$/);
    expect(result.written).toContain(join(out, "significance-summary.json"));
    const artifact = JSON.parse(readFileSync(join(out, "significance-summary.json"), "utf8"));
    expect(artifact.provenance.tool).toBe("notebook");
    expect(artifact.data).toHaveLength(2);
  });

  it("trajectories: the breakdown rows and the line under them", async () => {
    const out = scratch("loclab-stage-trajectories-");
    const result = await trajectoriesStage({ out, provenance });
    expect(result.rows).toHaveLength(4);
    expect(result.footer).toMatch(/^\d+ of 41 tasks solved by at least one run; base: /);
    const csv = readFileSync(join(out, "trajectory-breakdown.csv"), "utf8").trim().split("\n");
    expect(csv).toHaveLength(1 + result.rows.length);
  });
});
