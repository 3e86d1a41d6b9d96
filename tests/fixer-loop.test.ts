import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelClient, type ScriptTurn, startScriptedModelServer } from "@loclab/agent";
import { connectDocker } from "@loclab/docker";
import { breakdownRun, readRun } from "@loclab/analysis";
import { checkoutCode, renderContext } from "@loclab/fgl";
import {
  ContainerSandbox,
  FGL_SINGLE_AGENT,
  FGL_TWO_AGENTS,
  type FixerCompaction,
  type FixerLimits,
  fixInstance,
  type LocalizerRunner,
  localizerTool,
  removeLeftoverSandboxes,
} from "@loclab/fixer";
import { openWorkspace } from "@loclab/tools";
import type Docker from "dockerode";
import { rebuildRequests } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixerTestImage, type FixerTestImage } from "./fixer-image.js";

// The fixer's loop against the scripted model server (real HTTP) in a real container: each exit
// and recovery path, one script each. The task: calc.add subtracts; check.py fails until fixed.
let docker: Docker;
let fixture: FixerTestImage;
let work: string;
const attempt = `fixer-loop-${process.pid}`;
const instance = { instance_id: "loclab-fixtures__calc-1", problem_statement: "add(2, 3) returns -1, not 5." };

beforeAll(async () => {
  ({ docker } = await connectDocker({}));
  fixture = await buildFixerTestImage(docker, "fixer-loop");
  work = mkdtempSync(join(tmpdir(), "loclab-fixer-loop-"));
});
afterAll(async () => {
  await removeLeftoverSandboxes(docker, attempt).catch(() => undefined);
  await fixture?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

const call = (name: string, args: unknown) => ({
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});
const FIX = call("edit_file", {
  path: "calc/ops.py",
  old_text: "def add(a, b):\n    return a - b",
  new_text: "def add(a, b):\n    return a + b",
});

// Every attempt's trajectory goes into one folder, as a run's would (each its own instance id),
// and whether its final patch made check.py pass: the failure breakdown at the end reads them.
const checked = new Map<string, boolean>();
let attempts = 0;

/** One attempt: a sandbox from the task's image, the scripted model, the loop; the sandbox always removed. */
async function attemptWith(
  name: string,
  script: ScriptTurn[],
  limits: Partial<FixerLimits> = {},
  options: { twoAgents?: boolean; compaction?: FixerCompaction } = {},
) {
  const server = await startScriptedModelServer({ script });
  const sandbox = await ContainerSandbox.start(docker, { image: fixture.image, attempt });
  attempts += 1;
  const task = { ...instance, instance_id: `loclab-fixtures__calc-${attempts}` };
  const trajectoryPath = join(work, "run", `${task.instance_id}.traj.jsonl`);
  const client = createModelClient({ baseURL: server.url, model: "scripted", maxRetries: 0 });
  try {
    let localizer: LocalizerRunner | undefined;
    if (options.twoAgents) {
      const workspace = await openWorkspace({ root: fixture.repository });
      localizer = localizerTool({
        workspace,
        client,
        trajectoryDir: join(work, `${name}-localizer`),
        // The scripted server has no /tokenize: about 4 characters a token, enough to stay in budget here.
        render: (locations) =>
          renderContext(locations, checkoutCode(workspace), {
            countTokens: async (text) => Math.ceil(text.length / 4),
          }),
      });
    }
    const result = await fixInstance({
      instance: task,
      sandbox,
      client,
      trajectoryPath,
      limits: { ...(options.twoAgents ? FGL_TWO_AGENTS : FGL_SINGLE_AGENT), ...limits },
      ...(localizer ? { localizer } : {}),
      ...(options.compaction ? { compaction: options.compaction } : {}),
    });
    const check = await sandbox.run("python3 check.py", { timeoutMs: 60_000 });
    checked.set(task.instance_id, check.exitCode === 0);
    const lines = readFileSync(trajectoryPath, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    return { result, check, header: lines[0], steps: lines.slice(1), requests: server.requests };
  } finally {
    await sandbox.remove();
    await server.close();
  }
}

describe("the fixer's loop", () => {
  it("a fixer that reads, fixes, checks and submits: exit submitted, the patch fixes the task, every step in the trajectory", async () => {
    const { result, check, header, steps } = await attemptWith("fixes", [
      { toolCalls: [call("read_file", { path: "calc/ops.py" })] },
      { toolCalls: [FIX] },
      { toolCalls: [call("run_command", { command: "python3 check.py" })] },
      { toolCalls: [call("submit_patch", {})] },
    ]);
    expect(result.exit).toBe("submitted");
    expect(result.patch).toContain("+    return a + b");
    expect(check.stdout).toBe("ok\n");
    expect(result).toMatchObject({ calls: 3, turns: 4, recoveries: [], loops: [] });
    expect(result.toolResults.map((tool) => [tool.tool, tool.error ?? "ok"])).toEqual([
      ["read_file", "ok"],
      ["edit_file", "ok"],
      ["run_command", "ok"],
      ["submit_patch", "ok"],
    ]);
    // Localization (before the first edit) and repair (after) are apart: one model call before.
    expect(result.phases.beforeFirstEdit.apiCalls).toBe(2);
    expect(result.phases.afterFirstEdit.apiCalls).toBe(2);
    expect(header.outcome).toEqual({ exit: "submitted", patch: result.patch });
    expect(steps.map((step: { toolCalls: { name: string }[] }) => step.toolCalls.map((tool) => tool.name))).toEqual([
      ["read_file"],
      ["edit_file"],
      ["run_command"],
      ["submit_patch"],
    ]);
    expect(steps[2].toolCalls[0].observation).toBe("exit code 0\nstdout:\nok\n\nstderr:\n(empty)");
  });

  it("a fixer that edits the wrong file submits a patch that leaves the task broken", async () => {
    const { result, check } = await attemptWith("wrong", [
      { toolCalls: [call("edit_file", { path: "README.md", old_text: "calc\n", new_text: "calc, fixed\n" })] },
      { toolCalls: [call("submit_patch", {})] },
    ]);
    expect(result.exit).toBe("submitted");
    expect(result.patch).toContain("+calc, fixed");
    expect(result.patch).not.toContain("ops.py");
    expect(check.exitCode).not.toBe(0);
  });

  it("a fixer that loops until the call budget: exit call_limit, the current diff is the patch", async () => {
    const looping: ScriptTurn[] = [{ toolCalls: [FIX] }];
    for (let turn = 0; turn < 30; turn += 1)
      looping.push({ toolCalls: [call("run_command", { command: "python3 check.py" })] });
    const { result, steps } = await attemptWith("budget", looping, { callBudget: 20 });
    expect(result.exit).toBe("call_limit");
    expect(result.calls).toBe(20);
    expect(result.patch).toContain("+    return a + b");
    // The 21st counted call was refused, and the budget note came at 10 left.
    expect(result.toolResults.at(-1)).toMatchObject({ tool: "run_command", error: "budget-exhausted" });
    expect(steps[9].toolCalls[0].observation).toMatch(/\[budget: 10 tool calls left of 20/);
  });

  it("a fixer that hangs in a command past the wall budget is stopped by the supervisor; the diff so far is the patch", async () => {
    const { result, steps } = await attemptWith(
      "hangs",
      [{ toolCalls: [FIX] }, { toolCalls: [call("run_command", { command: "sleep 600" })] }],
      { wallMs: 4_000 },
    );
    expect(result.exit).toBe("time_limit");
    expect(result.toolResults.at(-1)).toMatchObject({ tool: "run_command", command: { cancelled: true } });
    expect(result.patch).toContain("+    return a + b");
    expect(result.wallMs).toBeGreaterThanOrEqual(4_000);
    expect(steps.at(-1).error).toMatch(/wall budget/);
  });

  it("a model call that outlives the wall budget is cancelled; the server sees its client go", async () => {
    const { result, requests } = await attemptWith("slow-model", [{ fault: "delay", ms: 120_000 }], { wallMs: 2_000 });
    expect(result.exit).toBe("time_limit");
    expect(result.patch).toBe("");
    expect(requests[0]?.clientClosed).toBe(true);
  });

  it("malformed calls, absent and ambiguous edits, a turn with no tool call and an answer cut at the output limit are answered, and the loop goes on", async () => {
    const { result, steps } = await attemptWith("recoveries", [
      { toolCalls: [call("edit_file", '{"path": "calc/ops.py", ')] },
      { toolCalls: [call("edit_file", { path: "calc/ops.py", old_text: "return a-b", new_text: "x" })] },
      { toolCalls: [call("edit_file", { path: "calc/ops.py", old_text: "    return a - b", new_text: "x" })] },
      { toolCalls: [call("read_file", { path: "calc/nope.py" })] },
      { content: "Let me think about it." },
      { content: "the the the the", finishReason: "length", usage: { promptTokens: 50, completionTokens: 8192 } },
      { toolCalls: [FIX] },
      { toolCalls: [call("submit_patch", {})] },
    ]);
    expect(result.exit).toBe("submitted");
    expect(result.toolResults.map((tool) => tool.error ?? "ok")).toEqual([
      "bad-arguments",
      "edit-absent",
      "edit-ambiguous",
      "no-such-file",
      "ok",
      "ok",
    ]);
    expect(result.recoveries).toEqual([
      { kind: "no-tool-call", step: 4 },
      { kind: "no-tool-call", step: 5 },
    ]);
    expect(result.loops).toEqual([{ step: 5, completionTokens: 8192, ms: expect.any(Number) }]);
    expect(steps[0].toolCalls[0].arguments).toEqual({ raw: '{"path": "calc/ops.py", ' });
    expect(steps[3].toolCalls[0].observation).toBe("No such file or directory: calc/nope.py");
  });

  it("two agents: the fixer calls the localizer, a fresh session whose turns are charged to the shared budget; its trajectory is linked", async () => {
    const { result, steps, check, requests } = await attemptWith(
      "two-agents",
      [
        { toolCalls: [call("localizer", { focus: "the add function" })] },
        { toolCalls: [call("view_file", { path: "calc/ops.py" })] },
        {
          toolCalls: [
            call("submit_localization", {
              locations: [{ path: "calc/ops.py", startLine: 1, endLine: 2, role: "edit", symbol: "add" }],
              finding: {
                locationExplanation: "add is defined here.",
                rootCause: "add subtracts.",
                solutionIdea: "Return a + b.",
                dependencies: "None.",
                testingImpact: "check.py.",
              },
            }),
          ],
        },
        { toolCalls: [FIX] },
        { toolCalls: [call("submit_patch", {})] },
      ],
      {},
      { twoAgents: true },
    );
    expect(result.exit).toBe("submitted");
    expect(check.stdout).toBe("ok\n");
    // The localizer's two turns and the one edit, out of 44.
    expect(result.calls).toBe(3);
    expect(result.toolResults[0]).toMatchObject({ tool: "localizer", counted: true, charged: 2 });
    expect(result.agents.localizer).toMatchObject({ turns: 2, apiCalls: 2 });
    expect(result.agents.fixer.apiCalls).toBe(3);
    expect(result.localizerTrajectories).toHaveLength(1);
    expect(steps[0].toolCalls[0].subTrajectory).toMatch(
      /^\.\.\/two-agents-localizer\/loclab-fixtures__calc-\d+\.localizer-1\.traj\.jsonl$/,
    );
    // The fixer sees ctx(z): the location's numbered lines.
    expect(steps[0].toolCalls[0].observation).toContain(
      "### calc/ops.py (lines 1-2)\n     1\tdef add(a, b):\n     2\t    return a - b",
    );
    // The localizer ran in a fresh session: its first request holds only its own system and user messages, with the fixer's focus.
    const localizerFirst = requests[1]!.body!.messages;
    expect(localizerFirst.map((message) => message.role)).toEqual(["system", "user"]);
    expect(JSON.stringify(localizerFirst[1])).toContain("The fixer asks: the add function");
    // The fixer offered seven tools; the localizer its own.
    expect(requests[0]!.body!.tools!.map((tool) => tool.function.name)).toContain("localizer");
    expect(requests[1]!.body!.tools!.map((tool) => tool.function.name)).toContain("submit_localization");
  });

  it("a prompt the server refuses as too long ends the attempt with context_limit", async () => {
    const { result } = await attemptWith("context", [
      { toolCalls: [FIX] },
      { fault: "http-400", message: "This model's maximum context length is 32768 tokens." },
    ]);
    expect(result.exit).toBe("context_limit");
    expect(result.patch).toContain("+    return a + b");
  });
  // After the attempts above (they run in order): the failure breakdown of the analysis package
  // reads the fixer's trajectories as a run, with check.py's verdicts as the resolved labels.
  it("the failure breakdown reads the fixer's trajectories: solved, out of budget, wrong patch, loops", async () => {
    const run = await readRun({ name: "fixer", format: "loclab", dir: join(work, "run") });
    expect(run.problems).toEqual([]);
    expect(run.summaries).toHaveLength(attempts);
    const resolved = new Set([...checked].filter(([, ok]) => ok).map(([id]) => id));
    const row = breakdownRun({ name: "fixer", summaries: run.summaries, resolved });
    const id = (n: number) => `loclab-fixtures__calc-${n}`;
    // 1 fixes, 2 wrong file, 3 call budget (fixed, but out of budget), 4 hangs (fixed before),
    // 5 slow model (nothing), 6 recoveries (fixed), 7 two agents (fixed), 8 context (fixed).
    expect(row.tasks).toBe(8);
    expect(row.exitStatuses).toEqual({ submitted: 4, call_limit: 1, time_limit: 2, context_limit: 1 });
    expect(new Set(row.ids.solved)).toEqual(new Set([id(1), id(3), id(4), id(6), id(7), id(8)]));
    expect(row.ids.wrongPatch).toEqual([id(2)]);
    // The slow model's attempt ended on its wall budget with no patch: out of budget comes first.
    expect(row.ids.outOfBudget).toEqual([id(5)]);
    expect(row.ids.noPatch).toEqual([]);
    expect(row.ids.loopsFinishLength).toEqual([id(6)]);
    expect(row.badPrefix).toBe(0);
  });
  it("two agents: a localizer session still running when the wall budget ends is stopped with the attempt", async () => {
    const { result, requests } = await attemptWith(
      "localizer-hangs",
      [{ toolCalls: [call("localizer", {})] }, { fault: "delay", ms: 120_000 }],
      { wallMs: 3_000 },
      { twoAgents: true },
    );
    expect(result.exit).toBe("time_limit");
    expect(result.toolResults[0]).toMatchObject({ tool: "localizer", localizer: { outcome: "budget_exhausted" } });
    expect(requests[1]?.clientClosed).toBe(true);
  });

  it("compaction: the model's summary replaces all but the last `overlap` turns once `interval` turns passed over the threshold; `retention` summaries stay", async () => {
    const read = {
      toolCalls: [call("read_file", { path: "calc/ops.py" })],
      usage: { promptTokens: 500, completionTokens: 10 },
    };
    const { result, requests, steps } = await attemptWith(
      "compaction",
      [
        read,
        read,
        { content: "SUMMARY-ONE" },
        { toolCalls: [FIX] },
        read,
        { content: "SUMMARY-TWO" },
        { toolCalls: [call("submit_patch", {})] },
      ],
      {},
      { compaction: { interval: 2, overlap: 1, thresholdTokens: 100, retention: 1 } },
    );
    expect(result.exit).toBe("submitted");
    expect(result.patch).toContain("+    return a + b");
    expect(result.compactions).toEqual([
      { step: 2, turnsReplaced: 1, promptTokens: 500 },
      { step: 5, turnsReplaced: 2, promptTokens: 500 },
    ]);
    // The summary call offers no tools and ends with the compaction prompt.
    expect(requests[2]!.body!.tools).toBeUndefined();
    expect(JSON.stringify(requests[2]!.body!.messages.at(-1))).toContain("about to be shortened");
    // After each: system, issue, the summaries kept, then the last turn as it was.
    const roles = (index: number) => requests[index]!.body!.messages.map((message) => message.role);
    expect(roles(3)).toEqual(["system", "user", "user", "assistant", "tool"]);
    expect(JSON.stringify(requests[3]!.body!.messages[2])).toContain("SUMMARY-ONE");
    expect(roles(6)).toEqual(["system", "user", "user", "assistant", "tool"]);
    expect(JSON.stringify(requests[6]!.body!.messages)).toContain("SUMMARY-TWO");
    expect(JSON.stringify(requests[6]!.body!.messages)).not.toContain("SUMMARY-ONE");
    // The trajectory keeps every request exactly: rebuilt from its deltas, each matches its digest.
    expect(steps[2].error).toMatch(/^compaction: 1 turn\(s\) replaced/);
    expect(rebuildRequests(steps).map((request) => request.digestMatches)).toEqual(steps.map(() => true));
    expect(result.usage.apiCalls).toBe(7);
  });
});
