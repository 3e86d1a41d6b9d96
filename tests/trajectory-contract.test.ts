import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createModelClient, localizeInstance, startScriptedModelServer } from "@loclab/agent";
import { budgetExit, readTrajectory, summarizeTrajectory } from "@loclab/analysis";
import { buildCalcFixture, CALC_ISSUE, calcSolvingTurns, type CalcFixture } from "@loclab/fixtures";
import { TrajectoryHeaderSchema, TrajectoryStepSchema } from "@loclab/schemas";
import { openWorkspace } from "@loclab/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The log is the contract: what the agent writes, the analysis package reads, through the one
// set of schemas in @loclab/schemas. Real HTTP to the scripted server, real tools, real git.
let fixture: CalcFixture;
beforeEach(async () => {
  fixture = await buildCalcFixture();
});
afterEach(async () => {
  await fixture.dispose();
});

async function localize(
  script: Parameters<typeof startScriptedModelServer>[0]["script"],
  options: { maxTurns?: number } = {},
) {
  const server = await startScriptedModelServer({ script });
  try {
    const workspace = await openWorkspace({ root: fixture.source });
    const client = createModelClient({
      baseURL: server.url,
      model: "scripted-model",
      backoffMs: 1,
      timeoutMs: 5_000,
      maxRetries: 1,
    });
    const trajectoryPath = join(fixture.source, "..", "runs", `${CALC_ISSUE.instance_id}.traj.jsonl`);
    const result = await localizeInstance({ instance: CALC_ISSUE, workspace, client, trajectoryPath, ...options });
    return { result, trajectoryPath };
  } finally {
    await server.close();
  }
}

describe("agent trajectory → analysis", () => {
  it("a finished run reads back through the analysis reader with every step, tool call and the usage", async () => {
    const { result, trajectoryPath } = await localize(calcSolvingTurns());
    expect(result.outcome).toBe("finished");
    const trajectory = await readTrajectory(trajectoryPath, "loclab");
    expect(trajectory.outcome.exitStatus).toBe("submitted");
    expect(trajectory.instanceId).toBe(CALC_ISSUE.instance_id);
    expect(trajectory.usage).toMatchObject({ apiCalls: 3 });
    expect(trajectory.steps.map((step) => step.toolCalls.map((call) => call.name))).toEqual([
      ["search_code"],
      ["view_file"],
      ["submit_localization"],
    ]);
    expect(trajectory.steps[1]?.toolCalls[0]).toMatchObject({ arguments: { path: "ops.py" }, ok: true });
    expect(
      trajectory.steps.every(
        (step) => step.finishReason === "tool_calls" && step.usage !== undefined && step.startedAt !== undefined,
      ),
    ).toBe(true);
    const summary = summarizeTrajectory(trajectory);
    expect(summary).toMatchObject({ format: "loclab", exitStatus: "submitted", steps: 3, apiCalls: 3 });
    expect(summary.toolCalls).toEqual({ search_code: 1, view_file: 1, submit_localization: 1 });
    // Every line also passes the shared schemas directly.
    const [head, ...steps] = (await readFile(trajectoryPath, "utf8")).trim().split("\n");
    expect(TrajectoryHeaderSchema.safeParse(JSON.parse(head ?? "")).success).toBe(true);
    for (const line of steps) expect(TrajectoryStepSchema.safeParse(JSON.parse(line)).success).toBe(true);
  });

  it("a run out of turns is out of budget for the failure breakdown, by the schema's budget exits", async () => {
    const search = { toolCalls: [{ name: "search_code", arguments: JSON.stringify({ query: "average" }) }] };
    const other = { toolCalls: [{ name: "search_code", arguments: JSON.stringify({ query: "sum" }) }] };
    const { result, trajectoryPath } = await localize([search, other], { maxTurns: 2 });
    expect(result.outcome).toBe("budget_exhausted");
    const summary = summarizeTrajectory(await readTrajectory(trajectoryPath, "loclab"));
    expect(summary.exitStatus).toBe("step_limit");
    expect(budgetExit(summary)).toEqual({ limit: "steps", rule: "loclab: exit step_limit" });
  });
});
