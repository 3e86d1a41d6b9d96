import { appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { readTrajectoryFile } from "./read-trajectory-file.js";
import { stampRecord } from "@loclab/schemas";
import { openWorkspace } from "@loclab/tools";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ChatCompletionRequest,
  createModelClient,
  localizeInstance,
  type ScriptedFault,
  type ScriptedModelServer,
  type ScriptTurn,
  startScriptedModelServer,
} from "../src/index.js";
import { FIXTURE_ISSUE, makeFixtureRepo } from "./fixture-repo.js";

// Fault injection over real HTTP: ~20 % of requests fail (5xx, cut connections, delays past the
// client's timeout), chosen by a seeded generator from the request's arrival index, so the run
// is the same every time (the instances run one after another).
let server: ScriptedModelServer | undefined;
let repo: Awaited<ReturnType<typeof makeFixtureRepo>> | undefined;
afterEach(async () => {
  await server?.close();
  await repo?.dispose();
  server = undefined;
  repo = undefined;
});

/** mulberry32: a tiny seeded PRNG; one draw per (seed, index). */
function draw(seed: number, index: number): number {
  let t = (seed + Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}

const TIMEOUT_MS = 500;
const FAULTS: ScriptedFault[] = [
  { fault: "http-500" },
  { fault: "http-503" },
  { fault: "cut-connection" },
  { fault: "delay", ms: TIMEOUT_MS * 4 },
];
const FAULT_TEXT =
  /scripted fault|internal server error|service unavailable|timed out|timeout|ECONNRESET|socket hang up|connection error/i;

const finding = {
  locationExplanation: "average computes the mean the issue reports as wrong.",
  rootCause: "It divides the sum by len(values) - 1 instead of len(values).",
  solutionIdea: "Divide by len(values).",
  dependencies: "calc/cli.py prints average's result.",
  testingImpact: "Add a test of average to tests/test_ops.py.",
};

/** The good answer for where the conversation is: search, view, submit. */
function goodTurn(request: ChatCompletionRequest): ScriptTurn {
  const step = request.messages.filter((message) => message.role === "assistant").length;
  const id = /task `label-([^`]+)`/.exec(String(request.messages[1]?.content))?.[1] ?? "?";
  const calls = [
    { name: "search_code", arguments: JSON.stringify({ query: "def average" }) },
    { name: "view_file", arguments: JSON.stringify({ path: "calc/ops.py" }) },
    {
      name: "submit_localization",
      arguments: JSON.stringify({
        locations: [{ path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit" }],
        finding,
      }),
    },
  ];
  return { content: `model turn ${step} of ${id}`, toolCalls: [calls[Math.min(step, 2)]!] };
}

describe("fault injection", () => {
  it("with 20 % of requests failing, a 10-instance run records every instance exactly once and no fault text as model output", async () => {
    const seed = 7;
    const injected: string[] = [];
    server = await startScriptedModelServer({
      script: (request, index) => {
        if (draw(seed, index) < 0.2) {
          // Which requests fail is the seeded draw; the kinds take turns, so all four occur.
          const fault = FAULTS[injected.length % FAULTS.length]!;
          injected.push(fault.fault);
          return fault;
        }
        return goodTurn(request);
      },
    });
    repo = await makeFixtureRepo();
    const workspace = await openWorkspace({ root: repo.root, files: "walk" });
    const client = createModelClient({
      baseURL: server.url,
      model: "scripted-model",
      backoffMs: 1,
      timeoutMs: TIMEOUT_MS,
      maxRetries: 6,
    });
    const ids = Array.from({ length: 10 }, (_, i) => `calc__calc-${i + 1}`);
    const predictionsPath = join(repo.runs, "predictions.jsonl");

    for (const id of ids) {
      const result = await localizeInstance({
        instance: { ...FIXTURE_ISSUE, instance_id: id },
        taskLabel: `label-${id}`,
        workspace,
        client,
        trajectoryPath: join(repo.runs, `${id}.traj.jsonl`),
      });
      expect(result.outcome, id).toBe("finished");
      await appendFile(predictionsPath, `${JSON.stringify(stampRecord(result.prediction!))}\n`, "utf8");
    }

    // The faults really happened: about a fifth of the requests, every kind at least once.
    const total = server.requests.length;
    expect(injected.length / total).toBeGreaterThan(0.1);
    expect(injected.length / total).toBeLessThan(0.35);
    expect(new Set(injected)).toEqual(new Set(["http-500", "http-503", "cut-connection", "delay"]));
    expect(total).toBe(30 + injected.length);

    // Each instance exactly once: 10 trajectories, 10 predictions, no duplicate ids.
    const files = (await readdir(repo.runs)).filter((name) => name.endsWith(".traj.jsonl")).sort();
    expect(files).toEqual(ids.map((id) => `${id}.traj.jsonl`).sort());
    const predictions = (await readFile(predictionsPath, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { instanceId: string; files: string[] });
    expect(predictions.map((p) => p.instanceId)).toEqual(ids);
    expect(predictions.every((p) => p.files[0] === "calc/ops.py")).toBe(true);

    let retriesRecorded = 0;
    for (const id of ids) {
      const trajectory = await readTrajectoryFile(join(repo.runs, `${id}.traj.jsonl`));
      expect(trajectory.header.outcome.exit).toBe("submitted");
      // One step per answered model call: faults add no steps and no outputs.
      expect(trajectory.steps.map((step) => step.output)).toEqual(
        [0, 1, 2].map((step) => `model turn ${step} of ${id}`),
      );
      for (const step of trajectory.steps) {
        expect(step.output).not.toMatch(FAULT_TEXT);
        for (const call of step.toolCalls) expect(call.observation ?? "").not.toMatch(FAULT_TEXT);
        retriesRecorded += (step.error?.match(/retry after attempt/g) ?? []).length;
      }
    }
    // Every fault was retried and recorded in the harness notes, not the output.
    expect(retriesRecorded).toBe(injected.length);
  });
});
