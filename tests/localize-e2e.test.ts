import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedModelServer } from "@loclab/agent";
import { buildCalcFixture, CALC_FINDING, calcSolvingTurns, type CalcFixture } from "@loclab/fixtures";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loclabBin } from "./helpers.js";

// End to end (issue 7): a git mirror of the calc fixture (a planted bug, real git), its issue,
// `loclab localize` against the scripted model server over real HTTP, then `loclab score`
// on the predictions it wrote.

let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
let fixture: CalcFixture;

beforeAll(async () => {
  fixture = await buildCalcFixture();
  server = await startScriptedModelServer({ script: calcSolvingTurns(), models: ["scripted"] });
});

afterAll(async () => {
  await server?.close();
  await fixture?.dispose();
});

describe("loclab localize, then loclab score", () => {
  it("localizes the planted bug over real HTTP and scores it", async () => {
    const out = join(fixture.source, "..", "run");
    const benchmark = fixture.benchmark;
    const localized = await execa(
      process.execPath,
      [
        loclabBin,
        "localize",
        "--benchmark",
        benchmark,
        "--repos",
        fixture.mirrors,
        "--endpoint",
        server.url,
        "--model",
        "scripted",
        "--out",
        out,
      ],
      { reject: false },
    );
    expect(localized.exitCode, localized.stderr).toBe(0);
    const [prediction] = readFileSync(join(out, "cells", "seed-none", "plain", "predictions.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { instanceId: string; files: string[]; finding: { rootCause: string } });
    expect(prediction).toMatchObject({
      instanceId: "acme__calc-1",
      files: ["calc/ops.py"],
      seed: null,
      control: { kind: "plain" },
    });
    expect(prediction?.finding.rootCause).toBe(CALC_FINDING.rootCause);
    const trajectory = readFileSync(
      join(out, "trajectories", "seed-none", "plain", "acme__calc-1", "attempt-1.traj.jsonl"),
      "utf8",
    )
      .trim()
      .split("\n");
    expect(trajectory.length).toBeGreaterThanOrEqual(4); // header + three steps
    const header = JSON.parse(trajectory[0] ?? "{}") as {
      provenance?: { tool: string; inputs?: Record<string, unknown> };
    };
    expect(header.provenance).toMatchObject({
      tool: "loclab",
      inputs: {
        seed: null,
        control: "plain",
        attempt: 1,
        localizer: { model: "scripted", localizer: { toolMode: "native", maxTurns: 20 } },
      },
    });
    const steps = trajectory
      .slice(1)
      .map((line) => JSON.parse(line) as { messagesDigest?: string; toolCalls: { name: string }[] });
    expect(steps.map((step) => step.toolCalls[0]?.name)).toEqual(["search_code", "view_file", "submit_localization"]);
    for (const step of steps) expect(step.messagesDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(steps.map((step) => step.messagesDigest)).size).toBe(3);
    expect(server.requests.filter((request) => request.method === "POST" && request.status === 200)).toHaveLength(3);

    const scored = await execa(
      process.execPath,
      [
        loclabBin,
        "score",
        "--benchmark",
        benchmark,
        "--predictions",
        join(out, "cells", "seed-none", "plain", "predictions.jsonl"),
        "--format",
        "loclab",
        "--json",
      ],
      { reject: false },
    );
    expect(scored.exitCode, scored.stderr).toBe(0);
    const { n, metrics } = JSON.parse(scored.stdout) as { n: number; metrics: Record<string, number> };
    expect(n).toBe(1);
    expect(metrics["file.acc@1"]).toBe(1);
    expect(metrics["span.coverageRecall"]).toBe(1);
    expect(metrics["span.precision"]).toBe(1);
  });
});
