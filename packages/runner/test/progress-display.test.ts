import { PassThrough } from "node:stream";
import { RUN_RECORD_KIND, type RunRecord } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import { formatEventLine, formatProgress, RunProgress, type RunEvent, terminalProgress } from "../src/index.js";

const record = (instanceId: string, outcome: RunRecord["outcome"], predicted: boolean): RunRecord => ({
  kind: RUN_RECORD_KIND,
  schemaVersion: 1,
  key: "a".repeat(64),
  instanceId,
  attempt: 1,
  seed: 1,
  control: { kind: "plain" },
  endpoint: { baseURL: "http://127.0.0.1:8000/v1", model: "m" },
  outcome,
  exit: predicted ? "submitted" : null,
  turns: 3,
  usage: { promptTokens: 100, completionTokens: 30, totalTokens: 130 },
  wallMs: 1500,
  modelMs: 1400,
  retries: [],
  trajectory: null,
  ...(predicted ? { prediction: { instanceId, files: ["a/b.py"], locations: [] } } : {}),
  ...(outcome === "infra_error" ? { error: "model transport failed after 4 attempt(s) (http-5xx)" } : {}),
  startedAt: "2026-12-01T00:00:00.000Z",
  endedAt: "2026-12-01T00:00:01.500Z",
});

const events: RunEvent[] = [
  {
    type: "start",
    dir: "runs/x",
    resumed: false,
    keys: 4,
    done: 1,
    cells: [{ cell: "seed-1/plain", keys: 4, done: 1, predicted: 1 }],
    endpoints: [
      {
        index: 0,
        baseURL: "http://127.0.0.1:8000/v1",
        model: "m",
        maxConcurrency: 2,
        weight: 1,
        health: "up",
        inFlight: 0,
        consecutiveFaults: 0,
        dispatched: 0,
        outages: 0,
      },
    ],
  },
  { type: "attempt-start", key: "k1", cell: "seed-1/plain", instanceId: "a__b-1", attempt: 1, endpoint: 0 },
  { type: "attempt-start", key: "k2", cell: "seed-1/plain", instanceId: "a__b-2", attempt: 1, endpoint: 0 },
  {
    type: "retry",
    cell: "seed-1/plain",
    instanceId: "a__b-2",
    endpoint: 0,
    retry: { attempt: 1, error: "http-5xx", message: "HTTP 503", waitedMs: 1000 },
  },
  {
    type: "attempt-end",
    cell: "seed-1/plain",
    record: record("a__b-1", "finished", true),
    endpoint: 0,
    requeued: false,
  },
  {
    type: "attempt-end",
    cell: "seed-1/plain",
    record: record("a__b-2", "infra_error", false),
    endpoint: 0,
    requeued: true,
  },
];

describe("progress", () => {
  it("folds events into per-cell and per-endpoint counts with an ETA", () => {
    let now = 0;
    const progress = new RunProgress(() => now);
    for (const event of events) progress.apply(event);
    now = 10_000;
    const snapshot = progress.snapshot();
    expect(snapshot.cells).toEqual([
      { cell: "seed-1/plain", keys: 4, done: 2, predicted: 2, running: 0, failed: 1, retries: 1 },
    ]);
    expect(snapshot.endpoints[0]).toMatchObject({
      attempts: 2,
      turns: 6,
      completionTokens: 60,
      tokensPerSecond: 6,
      inFlight: 0,
    });
    expect(snapshot.etaMs).toBe(20_000); // one key done in 10 s this session, two left
    const lines = formatProgress(snapshot);
    expect(lines[0]).toBe("2/4 done, 0 running, 1 failed, 1 retried, 10 s, ETA 20 s");
    expect(lines[1]).toMatch(/^ {2}seed-1\/plain +2\/4 done {2}0 running {2}1 failed {2}1 retried$/);
    expect(lines[2]).toBe("  [0] http://127.0.0.1:8000/v1  up  0 in flight  2 attempts  6 turns  6.0 tok/s");
  });

  it("prints plain lines, one per attempt and event, when the stream is not a terminal", () => {
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    let text = "";
    (stream as unknown as PassThrough).on("data", (chunk: Buffer) => (text += chunk.toString()));
    const display = terminalProgress({ stream, plainEveryMs: 60_000 });
    for (const event of events) display.onEvent(event);
    display.stop();
    const lines = text.trim().split("\n");
    expect(lines[0]).toBe("starting runs/x: 4 attempt keys (1 cells), 1 already done, 1 of 1 endpoints ready");
    expect(lines[1]).toBe("seed-1/plain a__b-1 #1: finished: a/b.py (3 turns, 1.5 s)");
    expect(lines[2]).toBe(
      "seed-1/plain a__b-2 #1: infra_error: model transport failed after 4 attempt(s) (http-5xx) (3 turns, 1.5 s); runs again on another endpoint",
    );
    expect(lines[3]).toMatch(/^2\/4 done, 0 running, 1 failed, 1 retried/); // the table at the end
    expect(text).not.toContain("\x1b[");
    expect(formatEventLine({ type: "paused", reason: "x: down" })).toBe(
      "paused: every endpoint is down (x: down); probing them",
    );
  });
});
