import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTrajectory } from "../src/trajectory-writer.js";
import { readTrajectoryFile } from "./read-trajectory-file.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "loclab-writer-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const header = { instanceId: "acme__calc-1", model: "m", limits: { steps: 20 }, startedAt: "2026-01-01T00:00:00.000Z" };
const usage = { promptTokens: 3, completionTokens: 2, totalTokens: 5, apiCalls: 1 };

describe("openTrajectory validates every line against the log contract (@loclab/schemas)", () => {
  it("writes lines that read back through the schemas, numbering the steps", async () => {
    const path = join(dir, "t.traj.jsonl");
    const writer = await openTrajectory(path, header);
    await writer.appendStep({
      toolCalls: [{ name: "view_file", arguments: { path: "a.py" }, observation: "x", ok: true }],
      startedAt: "2026-01-01T00:00:01.000Z",
      output: undefined,
    });
    await writer.appendStep({ toolCalls: [], startedAt: "2026-01-01T00:00:02.000Z", error: "no_tool_call: none" });
    await writer.finish({ exit: "submitted", usage, endedAt: "2026-01-01T00:00:03.000Z" });
    const { header: head, steps } = await readTrajectoryFile(path);
    expect(head).toMatchObject({
      kind: "loclab.trajectory",
      schemaVersion: 1,
      outcome: { exit: "submitted", patch: null },
      usage,
    });
    expect(steps.map((step) => step.step)).toEqual([0, 1]);
    expect(steps[0]).not.toHaveProperty("output");
  });

  it("refuses a step that does not fit, naming the field, and writes nothing for it", async () => {
    const path = join(dir, "bad.traj.jsonl");
    const writer = await openTrajectory(path, header);
    await expect(writer.appendStep({ toolCalls: [], startedAt: "yesterday" })).rejects.toThrow(
      "trajectory step 0 does not fit the loclab trajectory schema: startedAt:",
    );
    await expect(writer.appendStep({ toolCalls: [], messagesDigest: "abc" })).rejects.toThrow(/messagesDigest/);
    expect((await readFile(path, "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("refuses a header that does not fit before creating the file", async () => {
    await expect(openTrajectory(join(dir, "h.traj.jsonl"), { ...header, instanceId: "" })).rejects.toThrow(
      /trajectory header does not fit .*instanceId/,
    );
  });
});
