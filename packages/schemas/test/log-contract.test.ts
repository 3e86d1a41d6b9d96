import { describe, expect, it } from "vitest";
import {
  formatZodError,
  isBudgetExit,
  PredictionRecordSchema,
  RunRecordSchema,
  TRAJECTORY_BUDGET_EXITS,
  TRAJECTORY_EXITS,
  TrajectoryHeaderSchema,
} from "../src/index.js";

const record = {
  kind: "loclab.run-record",
  schemaVersion: 1,
  key: "7b9570232255ece394350c5f47b465ffefcad71e03fc9bcc0bf5ea98ea0d42d3",
  instanceId: "django__django-11099",
  attempt: 1,
  seed: 7,
  control: { kind: "masked", level: "modules" },
  endpoint: { baseURL: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen3-30B-A3B" },
  outcome: "finished",
  exit: "submitted",
  turns: 4,
  usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120, apiCalls: 4 },
  wallMs: 60000,
  modelMs: 55000,
  retries: [{ attempt: 1, error: "http-5xx", message: "HTTP 503", waitedMs: 1000 }],
  trajectory: "trajectories/seed-7/masked-modules/django__django-11099/attempt-1.traj.jsonl",
  prediction: {
    instanceId: "django__django-11099",
    files: ["django/core/validators.py"],
    locations: [],
    seed: 7,
    control: { kind: "masked", level: "modules" },
  },
  startedAt: "2026-12-01T10:00:00.000Z",
  endedAt: "2026-12-01T10:01:00.000Z",
};

describe("the log contract", () => {
  it("budget exits are trajectory exits, and only the *_limit ones", () => {
    for (const exit of Object.keys(TRAJECTORY_BUDGET_EXITS)) expect(TRAJECTORY_EXITS).toContain(exit);
    expect(TRAJECTORY_EXITS.filter(isBudgetExit)).toEqual([
      "step_limit",
      "cost_limit",
      "time_limit",
      "context_limit",
      "call_limit",
      "disk_limit",
    ]);
    expect(isBudgetExit("toString")).toBe(false);
  });

  it("a header with another schemaVersion is refused, naming the field", () => {
    const parsed = TrajectoryHeaderSchema.safeParse({
      kind: "loclab.trajectory",
      schemaVersion: 2,
      instanceId: "a",
      outcome: { exit: "running", patch: null },
    });
    expect(parsed.success).toBe(false);
    expect(formatZodError(parsed.error!)).toMatch(/^schemaVersion: /);
  });

  it("a run record is strict: an unknown key or a bad outcome names its path", () => {
    expect(RunRecordSchema.parse(record)).toEqual(record);
    const extra = RunRecordSchema.safeParse({ ...record, apiKey: "sk-…" });
    expect(formatZodError(extra.error!)).toContain('Unrecognized key: "apiKey"');
    const bad = RunRecordSchema.safeParse({ ...record, outcome: "solved", endpoint: { baseURL: "", model: "m" } });
    expect(formatZodError(bad.error!)).toMatch(/endpoint\.baseURL: .*; outcome: |outcome: .*; endpoint\.baseURL: /);
    const control = RunRecordSchema.safeParse({ ...record, control: { kind: "shuffled" } });
    expect(formatZodError(control.error!)).toMatch(/control\.seed: /);
    expect(RunRecordSchema.safeParse({ ...record, key: "abc" }).success).toBe(false);
  });

  it("a prediction line without schemaVersion says where it probably came from", () => {
    const parsed = PredictionRecordSchema.safeParse({ instanceId: "a", files: ["x.py"] });
    expect(formatZodError(parsed.error!)).toContain(
      "schemaVersion: missing: every line of a loclab predictions file carries",
    );
    expect(PredictionRecordSchema.parse({ schemaVersion: 1, instanceId: "a", files: ["x.py"] })).toEqual({
      schemaVersion: 1,
      instanceId: "a",
      files: ["x.py"],
      locations: [],
    });
  });
});
