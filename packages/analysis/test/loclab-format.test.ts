import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TrajectoryHeaderSchema } from "@loclab/schemas";
import { formatLoclabTrajectory, readTrajectory } from "../src/index.js";
import { loclabTrajectories, scratchDir } from "./fixtures.js";

// loclab's own trajectory format: one header line, then one line per step; written and read back.

describe("loclab trajectory format", () => {
  const dir = scratchDir("loclab-format");

  it("round-trips every trajectory through the file", async () => {
    for (const trajectory of loclabTrajectories()) {
      const path = join(dir, `${trajectory.instanceId}.traj.jsonl`);
      writeFileSync(path, formatLoclabTrajectory(trajectory));
      const read = await readTrajectory(path, "loclab");
      expect(read).toEqual({ ...trajectory, source: path });
    }
  });

  it("starts with a versioned header that names the instance and the outcome", () => {
    const text = formatLoclabTrajectory(loclabTrajectories()[1] as never);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(6);
    const header = TrajectoryHeaderSchema.parse(JSON.parse(lines[0] as string));
    expect(header).toEqual({
      kind: "loclab.trajectory",
      schemaVersion: 1,
      instanceId: "l__e-2",
      outcome: { exit: "step_limit", patch: null },
      limits: { steps: 5 },
    });
    expect(JSON.parse(lines[1] as string)).toEqual({
      step: 0,
      output: "more",
      toolCalls: [
        {
          name: "read_file",
          arguments: { path: "src/m0.py" },
          observation: "error: src/m0.py: No such file or directory",
        },
      ],
    });
  });

  it("refuses an exit that is not a loclab exit", () => {
    const trajectory = {
      ...(loclabTrajectories()[0] as never as object),
      outcome: { exitStatus: "Submitted", patch: null },
    };
    expect(() => formatLoclabTrajectory(trajectory as never)).toThrow(
      'formatLoclabTrajectory requires a loclab exit (submitted, step_limit, cost_limit, time_limit, context_limit, call_limit, disk_limit, format_error, error, running), got "Submitted"',
    );
  });

  it("names the line of a bad header, a bad step, or a step out of sequence", async () => {
    const header = JSON.stringify({
      kind: "loclab.trajectory",
      schemaVersion: 1,
      instanceId: "x__x-1",
      outcome: { exit: "submitted", patch: "" },
    });
    const cases: [string, RegExp][] = [
      [
        `${JSON.stringify({ kind: "loclab.trajectory", schemaVersion: 2, instanceId: "x", outcome: { exit: "submitted", patch: null } })}\n`,
        /line 1: not a loclab trajectory header: schemaVersion/,
      ],
      [`${header}\n{"step": 0, "toolCalls": [{"name": "", "arguments": {}}]}\n`, /line 2: toolCalls\.0\.name/],
      [
        `${header}\n{"step": 0, "toolCalls": []}\n{"step": 2, "toolCalls": []}\n`,
        /line 3: step 2 out of sequence \(expected 1\)/,
      ],
      [`${header}\nnot json\n`, /line 2: not valid JSON/],
      ["", /empty file/],
    ];
    for (const [text, error] of cases) {
      const path = join(dir, "bad.traj.jsonl");
      writeFileSync(path, text);
      await expect(readTrajectory(path, "loclab")).rejects.toThrow(error);
    }
  });
});
