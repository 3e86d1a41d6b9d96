import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readTrajectory } from "../src/index.js";
import {
  SUBMIT_1,
  SUBMIT_2,
  scratchDir,
  writeAutoCodeRoverRun,
  writeLoclabRun,
  writeMini1Run,
  writeMini2Run,
  writeSweAgentRun,
} from "./fixtures.js";

// Each importer on hand-made files: steps, tool calls, observations, usage, finish_reason,
// times, outcome and patch land in the one internal model.

let root: string;
beforeAll(() => {
  root = scratchDir("formats");
  writeMini2Run(root);
  writeMini1Run(root);
  writeSweAgentRun(root);
  writeAutoCodeRoverRun(root);
  writeLoclabRun(root);
});

describe("mini-swe-agent 2.x", () => {
  it("reads parallel tool calls, their observations by tool_call_id, usage, finish_reason and times", async () => {
    const t = await readTrajectory(join(root, "mini2", "m2__a-1", "m2__a-1.traj.json"), "mini-swe-agent");
    expect(t).toMatchObject({
      format: "mini-swe-agent-2",
      instanceId: "m2__a-1",
      outcome: { exitStatus: "Submitted" },
      usage: { apiCalls: 3, costUsd: 0.3 },
      limits: { steps: 250, costUsd: 3 },
      model: "fake/model",
    });
    expect(t.outcome.patch).toContain("diff --git");
    expect(t.steps).toHaveLength(3);
    expect(t.steps[0]).toMatchObject({
      index: 0,
      output: "THOUGHT: next.",
      finishReason: "tool_calls",
      usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110, costUsd: 0.01 },
      startedAt: 1000,
      endedAt: 1004,
      toolCalls: [
        { name: "bash", arguments: { command: "ls src/" }, returnCode: 0, observedAt: 1003 },
        { name: "bash", arguments: { command: "cat django/x.py" }, returnCode: 0, observedAt: 1004 },
      ],
    });
    expect(t.steps[0]?.toolCalls[0]?.observation).toBe("<returncode>0</returncode>\n<output>\nok\n</output>");
    expect(t.steps[2]?.toolCalls[0]).toMatchObject({ name: "submit", arguments: { command: SUBMIT_2 } });
  });

  it("keeps a harness FormatError: on the output that made no call, or as a step of its own", async () => {
    const cut = await readTrajectory(join(root, "mini2", "m2__a-2", "m2__a-2.traj.json"), "mini-swe-agent");
    expect(cut.steps).toHaveLength(4);
    expect(cut.steps[2]).toMatchObject({
      finishReason: "length",
      toolCalls: [],
      error: "Tool call error: no tool call",
      startedAt: 2010,
      endedAt: 2040,
      usage: { completionTokens: 4096 },
    });
    const separate = await readTrajectory(join(root, "mini2", "m2__a-4", "m2__a-4.traj.json"), "mini-swe-agent");
    expect(separate.steps.map((s) => [s.toolCalls.length, s.output === undefined, s.error === undefined])).toEqual([
      [1, false, true],
      [0, true, false],
      [1, false, true],
    ]);
    expect(separate.outcome).toEqual({ exitStatus: "Submitted", patch: "" });
  });

  it("says why a file does not parse", async () => {
    await expect(readTrajectory(join(root, "mini2", "m2__a-7", "m2__a-7.traj.json"), "mini-swe-agent")).rejects.toThrow(
      /not valid JSON/,
    );
  });
});

describe("mini-swe-agent 1.x", () => {
  it("takes the single bash block as the action, the next user message as its observation, the submission after submit", async () => {
    const t = await readTrajectory(join(root, "mini1", "trajs", "m1__b-1", "m1__b-1.traj.json"), "mini-swe-agent");
    expect(t).toMatchObject({
      format: "mini-swe-agent-1",
      instanceId: "m1__b-1",
      outcome: { exitStatus: "Submitted" },
      usage: { apiCalls: 3 },
    });
    expect(t.steps).toHaveLength(3);
    expect(t.steps[0]).toMatchObject({
      finishReason: "stop",
      startedAt: 100,
      toolCalls: [
        {
          name: "bash",
          arguments: { command: "ls" },
          observation: "<returncode>0</returncode>\n<output>\ndjango\n</output>",
        },
      ],
    });
    expect(t.steps[0]?.endedAt).toBeUndefined();
    // Two blocks: the harness's FormatError, no call.
    expect(t.steps[1]).toMatchObject({
      toolCalls: [],
      error: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
    });
    expect(t.steps[2]?.toolCalls[0]).toMatchObject({ name: "submit", arguments: { command: SUBMIT_1 } });
    expect(t.steps[2]?.toolCalls[0]?.observation).toContain("diff --git");
  });
});

describe("SWE-agent 0.x", () => {
  it("maps actions to ACI commands or bash, keeps exit_* as harness steps, reads model_stats, skips history", async () => {
    const t = await readTrajectory(join(root, "swe", "s__c-1.traj"), "swe-agent");
    expect(t).toMatchObject({
      format: "swe-agent",
      instanceId: "s__c-1",
      outcome: { exitStatus: "submitted" },
      usage: { apiCalls: 4, costUsd: 0.4, promptTokens: 4000, completionTokens: 400 },
    });
    expect(t.steps.map((s) => s.toolCalls.map((c) => c.name))).toEqual([["find_file"], ["open"], ["edit"], ["submit"]]);
    expect(t.steps[2]?.toolCalls[0]?.arguments).toEqual({ command: "edit 1:1\nb\nend_of_edit" });
    expect(t.steps[0]?.output).toContain("DISCUSSION");
    expect(t.steps.every((s) => s.startedAt === undefined && s.finishReason === undefined)).toBe(true);
    const autosubmitted = await readTrajectory(join(root, "swe", "s__c-2.traj"), "swe-agent");
    expect(autosubmitted.steps[1]).toMatchObject({ toolCalls: [], error: "exit_cost: Exited (autosubmitted)" });
    const shell = await readTrajectory(join(root, "swe", "s__c-4.traj"), "swe-agent");
    expect(shell.steps[0]?.toolCalls[0]?.name).toBe("bash");
    const noStatus = await readTrajectory(join(root, "swe", "s__c-5.traj"), "swe-agent");
    expect(noStatus.outcome).toEqual({ exitStatus: null, patch: null });
  });
});

describe("AutoCodeRover", () => {
  it("reads outputs of the last conversation round, the search calls, cost.json, the patch and the outcome folder", async () => {
    const t = await readTrajectory(
      join(root, "acr", "applicable_patch", "a__d-1_2024-04-06_13-00-00"),
      "autocoderover",
    );
    expect(t).toMatchObject({
      format: "autocoderover",
      instanceId: "a__d-1",
      outcome: { exitStatus: "applicable_patch" },
      rounds: 2,
      startedAt: 1000,
      endedAt: 1100,
      usage: { promptTokens: 5000, completionTokens: 500, totalTokens: 5500, costUsd: 0.065 },
      model: "gpt-4-0125-preview",
    });
    expect(t.outcome.patch).toContain("diff --git");
    expect(t.steps.filter((s) => s.output !== undefined)).toHaveLength(3);
    expect(t.steps.flatMap((s) => s.toolCalls).map((c) => [c.name, c.ok])).toEqual([
      ["search_class", true],
      ["search_method", true],
      ["search_method_in_class", false],
      ["search_code", true],
    ]);
    const unmatched = await readTrajectory(
      join(root, "acr", "raw_patch_but_unmatched", "a__d-3_2024-04-06_13-20-00"),
      "autocoderover",
    );
    expect(unmatched).toMatchObject({ outcome: { exitStatus: "raw_patch_but_unmatched", patch: null }, rounds: 11 });
  });
});

describe("loclab", () => {
  it("reads the header and the steps back as written", async () => {
    const t = await readTrajectory(join(root, "loclab", "l__e-1.traj.jsonl"), "loclab");
    expect(t).toMatchObject({
      format: "loclab",
      instanceId: "l__e-1",
      outcome: { exitStatus: "submitted" },
      model: "fake/model",
      limits: { steps: 36, calls: 36 },
      startedAt: 1_700_000_000,
      endedAt: 1_700_000_040,
    });
    expect(t.steps[1]).toMatchObject({
      index: 1,
      startedAt: 1_700_000_005,
      endedAt: 1_700_000_030,
      toolCalls: [{ name: "run_command" }, { name: "get_status" }],
    });
  });
});

describe("structurally broken trajectories are refused, not read as empty (issue 12 sweep)", () => {
  let mini: Record<string, unknown>;
  let swe: Record<string, unknown>;
  const dir = mkdtempSync(join(tmpdir(), "loclab-broken-"));
  beforeAll(() => {
    mini = JSON.parse(readFileSync(join(root, "mini2", "m2__a-1", "m2__a-1.traj.json"), "utf8")) as Record<
      string,
      unknown
    >;
    swe = JSON.parse(readFileSync(join(root, "swe", "s__c-1.traj"), "utf8")) as Record<string, unknown>;
  });
  const write = (name: string, value: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };

  it("mini-swe-agent without messages, with messages as a string, or of an unknown trajectory_format", async () => {
    const { messages: _dropped, ...noMessages } = mini;
    await expect(readTrajectory(write("none.traj.json", noMessages), "mini-swe-agent")).rejects.toThrow(
      "no messages: the conversation (messages[]) is missing, empty or not an array",
    );
    await expect(
      readTrajectory(write("string.traj.json", { ...mini, messages: "hello" }), "mini-swe-agent"),
    ).rejects.toThrow('"messages" is string, not an array');
    await expect(
      readTrajectory(write("format.traj.json", { ...mini, trajectory_format: "mini-swe-agent-9" }), "mini-swe-agent"),
    ).rejects.toThrow('trajectory_format "mini-swe-agent-9" is not one this reader knows');
  });

  it("SWE-agent with trajectory as an object", async () => {
    await expect(
      readTrajectory(write("object.traj", { ...swe, trajectory: { step: 1 } }), "swe-agent"),
    ).rejects.toThrow('"trajectory" is object, not an array');
  });
});
