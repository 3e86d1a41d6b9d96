import { join } from "node:path";
import { readTrajectoryFile } from "./read-trajectory-file.js";
import { openWorkspace, type Workspace } from "@loclab/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createModelClient,
  localizeInstance,
  parseTextToolCall,
  type ModelScript,
  type ScriptedModelServer,
  type ScriptTurn,
  startScriptedModelServer,
} from "../src/index.js";
import { FIXTURE_FINDING, FIXTURE_ISSUE, FIXTURE_SPAN, makeFixtureRepo } from "./fixture-repo.js";

// Text tool-calling over real HTTP: the scripted server answers with plain content only.
let server: ScriptedModelServer | undefined;
let repo: Awaited<ReturnType<typeof makeFixtureRepo>>;
let workspace: Workspace;
let trajectoryPath: string;

beforeEach(async () => {
  repo = await makeFixtureRepo();
  workspace = await openWorkspace({ root: repo.root, files: "walk" });
  trajectoryPath = join(repo.runs, `${FIXTURE_ISSUE.instance_id}.traj.jsonl`);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await repo.dispose();
});

const finding = FIXTURE_FINDING;
const averageSpan = FIXTURE_SPAN;
const block = (tool: string, args: unknown, prose = "Next step.") => ({
  content: `${prose}\n\n\`\`\`json\n${JSON.stringify({ tool, arguments: args })}\n\`\`\`\n`,
});
const submitText = block("submit_localization", { locations: [averageSpan], finding }, "I know where the fix goes.");

async function run(script: ModelScript, maxTurns?: number) {
  server = await startScriptedModelServer({ script });
  const client = createModelClient({
    baseURL: server.url,
    model: "scripted-model",
    backoffMs: 1,
    timeoutMs: 5_000,
    maxRetries: 1,
  });
  const result = await localizeInstance({
    instance: FIXTURE_ISSUE,
    workspace,
    client,
    trajectoryPath,
    toolMode: "text",
    ...(maxTurns ? { maxTurns } : {}),
  });
  return { result, requests: server.requests.flatMap((request) => (request.body ? [request.body] : [])) };
}

describe("localizeInstance, toolMode text", () => {
  it("end to end: no tools are sent, the protocol is in the system prompt, calls are parsed from ```json blocks", async () => {
    const { result, requests } = await run([
      block("search_code", { query: "def average" }),
      block("view_file", { path: "calc/ops.py" }),
      submitText,
    ]);
    expect(result.outcome).toBe("finished");
    expect(result.turns).toBe(3);
    expect(result.recoveries).toEqual([]);
    expect(result.prediction).toEqual({
      instanceId: "acme__calc-1",
      files: ["calc/ops.py"],
      locations: [averageSpan],
      finding,
    });
    expect(requests.every((request) => request.tools === undefined)).toBe(true);
    const system = String(requests[0]?.messages[0]?.content);
    expect(system).toContain('{"tool": "view_file", "arguments": {"path": "src/app.py"}}');
    expect(system).toContain("- `submit_localization`: ");
    expect(system).toMatch(/- `search_code`: .*\n {2}Parameters: \{"type":"object"/);
    expect(system).toContain("at most 20 turns");
    expect(system).not.toContain("{{");
    // No tool-role messages or tool_calls on the wire: observations come back as user text.
    const last = requests[2]?.messages ?? [];
    expect(last.some((message) => message.role === "tool" || "tool_calls" in message)).toBe(false);
    expect(last.at(-2)).toMatchObject({ role: "assistant", content: expect.stringContaining('"tool":"view_file"') });
    expect(last.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringMatching(/^Result of view_file:\n[\s\S]*return sum\(values\) \/ \(len\(values\) - 1\)/),
    });
    expect(requests[1]?.messages.at(-1)?.content).toContain("calc/ops.py:8:");
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.header.outcome.exit).toBe("submitted");
    expect(trajectory.steps.map((step) => step.toolCalls.map((c) => c.name))).toEqual([
      ["search_code"],
      ["view_file"],
      ["submit_localization"],
    ]);
    expect(trajectory.steps[1]?.toolCalls[0]).toMatchObject({ arguments: { path: "calc/ops.py" }, ok: true });
  });

  it("a missing or malformed block gets a message saying what was wrong; the run goes on in text mode", async () => {
    const turns: ScriptTurn[] = [
      { content: "Let me think about the mean." },
      { content: '```json\n{"tool": "view_file", "arguments": {"path": "calc/ops.py"}\n```' },
      { content: '```json\n{"tool": "view_file"}\n```' },
      { content: `${block("repo_tree", {}).content}${block("view_file", { path: "calc/ops.py" }).content}` },
      block("view_file", { file: "calc/ops.py" }),
      submitText,
    ];
    const { result, requests } = await run(turns);
    expect(result.outcome).toBe("finished");
    expect(result.recoveries.map((recovery) => recovery.kind)).toEqual([
      "no_tool_call",
      "malformed_call",
      "malformed_call",
      "malformed_call",
      "malformed_call",
    ]);
    const reply = (index: number) => String(requests[index]?.messages.at(-1)?.content);
    expect(reply(1)).toContain("the answer has no ```json block with a tool call");
    expect(reply(2)).toContain("the ```json block is not valid JSON");
    expect(reply(3)).toContain('needs an "arguments" field');
    expect(reply(4)).toContain("the answer has 2 ```json blocks; write exactly one per turn");
    // A parsed call whose arguments misfit the tool goes to the tool, which says so.
    expect(reply(5)).toMatch(/^Result of view_file:\n.*the arguments of view_file do not fit its schema/);
    expect(requests.every((request) => request.tools === undefined)).toBe(true);
  });

  it("forced final in text mode: the last turn asks for submit_localization; another tool is refused", async () => {
    const { result, requests } = await run([block("view_file", { path: "calc/ops.py" }), block("repo_tree", {})], 2);
    expect(result).toMatchObject({ outcome: "budget_exhausted", budget: "turns" });
    expect(requests[1]?.messages.at(-1)?.content).toContain("This is your last turn");
    expect(result.recoveries.map((recovery) => recovery.kind)).toEqual(["forced_final", "unknown_tool"]);
  });
});

describe("parseTextToolCall", () => {
  it("reads one block, rejects the rest with a reason", () => {
    expect(parseTextToolCall('x\n```json\n{"tool": "repo_tree", "arguments": {}}\n```')).toEqual({
      ok: true,
      name: "repo_tree",
      arguments: "{}",
    });
    expect(parseTextToolCall(null)).toMatchObject({ ok: false, kind: "missing" });
    expect(parseTextToolCall('```json\n{"tool": "a", "arguments": {}}')).toMatchObject({
      ok: false,
      kind: "malformed",
      problem: expect.stringContaining("not closed"),
    });
    expect(parseTextToolCall("```json\n[1]\n```")).toMatchObject({
      ok: false,
      problem: "the ```json block must hold one JSON object",
    });
    expect(parseTextToolCall('```json\n{"tool": "a", "arguments": {}, "why": 1}\n```')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('"why"'),
    });
  });
});
