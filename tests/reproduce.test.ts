import { readFileSync } from "node:fs";
import { join } from "node:path";
import { artifactSchema } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loclab, scratch } from "./helpers.js";

// `loclab reproduce` whole, its real-model stage included (a `loclab serve` process on the
// test model): in the real-model group of the vitest config, which runs alone after the others
// (two llama.cpp processes on two cores spin against each other).
const scratchDir = scratch("loclab-reproduce-");

describe("loclab reproduce", () => {
  it("writes the gold summary artifact, CSVs and charts", async () => {
    const out = join(scratchDir, "results");
    const { stdout, exitCode } = await loclab(["reproduce", "--out", out]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/reproduce finished in/);
    const summary = artifactSchema(
      z.object({
        benchmarks: z.array(
          z.object({ benchmark: z.string(), instances: z.number(), repos: z.number(), failures: z.array(z.unknown()) }),
        ),
      }),
    ).parse(JSON.parse(readFileSync(join(out, "gold-summary.json"), "utf8")));
    expect(summary.kind).toBe("loclab.gold-summary");
    expect(summary.data.benchmarks.map((b) => [b.benchmark, b.instances, b.failures.length])).toEqual([
      ["lite", 300, 0],
      ["verified", 500, 0],
      ["locbench", 560, 0],
    ]);
    const csv = readFileSync(join(out, "gold-per-instance.csv"), "utf8").trim().split("\n");
    expect(csv[0]).toBe("benchmark,instanceId,repo,goldFiles,createdFiles,spans,hunks,addedLines");
    expect(csv).toHaveLength(1 + 1360);
    expect(readFileSync(join(out, "instances-per-repo.svg"), "utf8")).toMatch(/^<svg/);
    expect(readFileSync(join(out, "gold-files-per-instance.png")).subarray(1, 4).toString()).toBe("PNG");
    const leaderboard = readFileSync(join(out, "localization-leaderboard.csv"), "utf8").trim().split("\n");
    expect(leaderboard[0]).toBe(
      "system,benchmark,preset,n,excluded,file acc@1,file hit@1,file acc@5,file hit@5,file recall@5,file MRR,module acc@5,function acc@5,function hit@5,module n,module excluded,function n,function excluded,sherloc file recall,sherloc file precision",
    );
    expect(leaderboard).toHaveLength(1 + 2 * 16);
    // BLAgent ranks files only: its module and function columns are blank, not 0; floats to 6 significant digits.
    expect(leaderboard).toContain("blagent/claude-4-6,lite,blagent,300,0,0.866667,,0.946667,,,0.900861,,,,,,,,,");
    // SHERLOC's file recall counts all of BLAgent's ~10 ranked files: 95.33 % against acc@1's 86.67 %.
    expect(leaderboard).toContain(
      "blagent/claude-4-6,lite,unified,300,0,0.866667,0.866667,0.946667,0.946667,0.946667,0.900861,,,,,,,,0.953333,0.0938076",
    );
    expect(leaderboard).toContain(
      "locagent/claude35-lite,lite,locagent,274,26,0.777372,,0.941606,,0.941606,,0.864964,0.733577,,274,26,274,26,,",
    );
    const significance = artifactSchema(
      z.array(
        z.object({ benchmark: z.string(), systems: z.number(), pairs: z.number(), tasksNeeded: z.number().nullable() }),
      ),
    ).parse(JSON.parse(readFileSync(join(out, "significance-summary.json"), "utf8")));
    expect(significance.data.map((row) => [row.benchmark, row.systems, row.pairs])).toEqual([
      ["lite", 42, 861],
      ["verified", 36, 630],
    ]);
    expect(readFileSync(join(out, "significance-lite-pairs.csv"), "utf8").trim().split("\n")).toHaveLength(1 + 861);
    const breakdown = readFileSync(join(out, "trajectory-breakdown.csv"), "utf8").trim().split("\n");
    expect(breakdown).toHaveLength(1 + 4);
    expect(breakdown[1]).toMatch(/^mini-swe-agent_deepseek-chat_lite,41,33,/);
    const demo = JSON.parse(readFileSync(join(out, "localizer-demo-score.json"), "utf8")) as {
      outcomes: Record<string, number>;
      metrics: Record<string, number>;
    };
    expect(demo.outcomes).toEqual({ finished: 1 });
    expect(demo.metrics["file.acc@1"]).toBe(1);
    // Stage 6: the real model, through `loclab serve` in its own process.
    const real = JSON.parse(readFileSync(join(out, "real-model-runs.json"), "utf8")) as {
      model: { server: string; model: { sha256: string } };
      runs: Record<string, { attempts: number; outcomes: Record<string, number> }>;
      cells: Array<{ temperature: number; seed: number; exit: string }>;
    };
    expect(real.model).toMatchObject({
      server: "loclab-serve",
      model: { sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53" },
    });
    expect(real.cells.map((cell) => [cell.temperature, cell.seed])).toEqual([
      [0.2, 1],
      [0.2, 2],
      [1, 1],
      [1, 2],
    ]);
    for (const run of Object.values(real.runs))
      expect(Object.values(run.outcomes).reduce((sum, n) => sum + n, 0)).toBe(2);
    expect(stdout).toMatch(/\|temperature\|seed\|exit\|/);
  }); // the real-model stage is CPU inference: about 2 minutes
});
