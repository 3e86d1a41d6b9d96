import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readRun, readTrajectory, summarizeTrajectory, visitJsonDocument } from "../src/index.js";
import { scratchDir, writeMini1Run, writeMini2Run, writeSweAgentRun } from "./fixtures.js";

// Large JSON trajectories are streamed (@streamparser/json, one element at a time): the streamed
// path must read exactly what JSON.parse reads.

let root: string;
beforeAll(() => {
  root = scratchDir("streaming");
  writeMini2Run(root);
  writeMini1Run(root);
  writeSweAgentRun(root);
});

describe("streamed and whole reads agree", () => {
  it("on every mini-swe-agent and SWE-agent fixture", async () => {
    const files: [string, "mini-swe-agent" | "swe-agent"][] = [
      ...["m2__a-1", "m2__a-2", "m2__a-3", "m2__a-4"].map(
        (id) => [join(root, "mini2", id, `${id}.traj.json`), "mini-swe-agent"] as [string, "mini-swe-agent"],
      ),
      ...["m1__b-1", "m1__b-2", "m1__b-3"].map(
        (id) => [join(root, "mini1", "trajs", id, `${id}.traj.json`), "mini-swe-agent"] as [string, "mini-swe-agent"],
      ),
      ...["s__c-1", "s__c-2", "s__c-5"].map(
        (id) => [join(root, "swe", `${id}.traj`), "swe-agent"] as [string, "swe-agent"],
      ),
    ];
    for (const [file, format] of files) {
      const whole = await readTrajectory(file, format);
      const streamed = await readTrajectory(file, format, { maxWholeFileBytes: 0 });
      expect(streamed).toEqual(whole);
    }
  });

  it("on a run read with every file streamed", async () => {
    const whole = await readRun({ name: "m", format: "mini-swe-agent", dir: join(root, "mini2") });
    const streamed = await readRun(
      { name: "m", format: "mini-swe-agent", dir: join(root, "mini2") },
      { maxWholeFileBytes: 0 },
    );
    expect(streamed.summaries).toEqual(whole.summaries);
    expect(streamed.problems).toHaveLength(1);
    expect(streamed.problems[0]?.reason).toMatch(/not valid JSON \(streamed, stopped near byte \d+\)/);
  });

  it("on a 20 MB trajectory of 4,000 steps", async () => {
    const messages: object[] = [
      { role: "system", content: "s" },
      { role: "user", content: "task" },
    ];
    const big = "x".repeat(5000);
    for (let i = 0; i < 4000; i += 1) {
      messages.push({
        role: "assistant",
        content: `step ${i}`,
        tool_calls: [
          { id: `c${i}`, function: { name: "bash", arguments: JSON.stringify({ command: `cat f${i}/a.py` }) } },
        ],
        extra: { response: { created: i, choices: [{ finish_reason: "tool_calls" }] }, timestamp: i + 0.5 },
      });
      messages.push({
        role: "tool",
        tool_call_id: `c${i}`,
        content: i % 100 === 0 ? "No such file or directory" : big,
        extra: { timestamp: i + 0.9 },
      });
    }
    const file = join(root, "big.traj.json");
    writeFileSync(
      file,
      JSON.stringify({
        info: { exit_status: "Submitted", submission: "" },
        messages,
        trajectory_format: "mini-swe-agent-1.1",
        instance_id: "big__big-1",
      }),
    );
    const streamed = await readTrajectory(file, "mini-swe-agent", { maxWholeFileBytes: 1024 });
    const summary = summarizeTrajectory(streamed);
    expect(summary).toMatchObject({
      instanceId: "big__big-1",
      steps: 4000,
      toolCalls: { bash: 4000 },
      noFileObservations: 40,
      seconds: 3999.9 - 0,
    });
    expect(streamed).toEqual(await readTrajectory(file, "mini-swe-agent"));
  });
});

describe("errors", () => {
  it("name the bad message the same way on both paths", async () => {
    const file = join(root, "bad-message.traj.json");
    writeFileSync(
      file,
      JSON.stringify({
        info: { exit_status: "Submitted" },
        messages: [
          { role: "system", content: "s" },
          { role: 7, content: "x" },
        ],
      }),
    );
    await expect(readTrajectory(file, "mini-swe-agent")).rejects.toThrow(/^messages\[1\]: role: /);
    await expect(readTrajectory(file, "mini-swe-agent", { maxWholeFileBytes: 0 })).rejects.toThrow(
      /^messages\[1\]: role: /,
    );
  });

  it("say where a truncated file stops when streamed", async () => {
    const file = join(root, "truncated.traj.json");
    writeFileSync(
      file,
      '{"info": {"exit_status": "Submitted"}, "messages": [{"role": "system", "content": "s"}, {"role": "us',
    );
    await expect(readTrajectory(file, "mini-swe-agent")).rejects.toThrow(/^not valid JSON: /);
    await expect(readTrajectory(file, "mini-swe-agent", { maxWholeFileBytes: 0 })).rejects.toThrow(
      /^not valid JSON \(streamed, stopped near byte \d+\)/,
    );
  });
});

describe("visitJsonDocument", () => {
  it("drops a byte-order mark on both paths, and refuses a top level that is not an object", async () => {
    const dir = scratchDir("visit");
    const bom = join(dir, "bom.json");
    writeFileSync(bom, `\uFEFF${JSON.stringify({ messages: [1, 2], skipped: { b: 2 }, info: { a: 1 } })}`);
    for (const maxWholeFileBytes of [0, 1 << 20]) {
      const seen: unknown[] = [];
      const result = await visitJsonDocument(
        bom,
        {
          element: (container, value) => seen.push([container, value]),
          member: (key, value) => seen.push([key, value]),
        },
        { streamedArrays: ["messages"], members: ["info"], maxWholeFileBytes },
      );
      expect(seen).toEqual([
        ["messages", 1],
        ["messages", 2],
        ["info", { a: 1 }],
      ]);
      expect(result.streamed).toBe(maxWholeFileBytes === 0);
    }
    const array = join(dir, "array.json");
    writeFileSync(array, "[1, 2]");
    const visitor = { element: () => undefined, member: () => undefined };
    await expect(
      visitJsonDocument(array, visitor, { streamedArrays: [], members: [], maxWholeFileBytes: 0 }),
    ).rejects.toThrow("the top level is an array, not an object");
    await expect(visitJsonDocument(array, visitor, { streamedArrays: [], members: [] })).rejects.toThrow(
      "the top level is an array, not an object",
    );
  });
});
