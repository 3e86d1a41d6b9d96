import { readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { readTrajectoryFile } from "./read-trajectory-file.js";
import { openWorkspace, type Workspace } from "@loclab/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ChatCompletionRequest,
  createModelClient,
  localizeInstance,
  type LocalizeInstanceOptions,
  type ModelScript,
  type ScriptedModelServer,
  type ScriptedReply,
  type ScriptTurn,
  startScriptedModelServer,
} from "../src/index.js";
import { FIXTURE_FINDING, FIXTURE_ISSUE, FIXTURE_SPAN, makeFixtureRepo } from "./fixture-repo.js";

// Real HTTP to a scripted server on 127.0.0.1, real tools over a temp-dir Python package.
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

const call = (name: string, args: unknown): ScriptedReply => ({
  toolCalls: [{ name, arguments: typeof args === "string" ? args : JSON.stringify(args) }],
});
const submit = (args: unknown = { locations: [averageSpan], finding }): ScriptTurn => call("submit_localization", args);
const viewOps = call("view_file", { path: "calc/ops.py" });

async function run(
  script: ModelScript,
  options: Partial<LocalizeInstanceOptions> & { maxRetries?: number; apiKeyEnv?: string } = {},
) {
  server = await startScriptedModelServer({ script });
  const { maxRetries, apiKeyEnv, ...rest } = options;
  const client = createModelClient({
    baseURL: server.url,
    model: "scripted-model",
    backoffMs: 1,
    timeoutMs: 5_000,
    maxRetries: maxRetries ?? 1,
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
  });
  const result = await localizeInstance({ instance: FIXTURE_ISSUE, workspace, client, trajectoryPath, ...rest });
  return { result, requests: server.requests.flatMap((request) => (request.body ? [request.body] : [])) };
}

/** The messages of the request the model got on turn `index`. */
const lastMessage = (request: ChatCompletionRequest | undefined) => request?.messages.at(-1);
const toolNames = (request: ChatCompletionRequest | undefined) => request?.tools?.map((tool) => tool.function.name);
const kinds = (result: { recoveries: { kind: string }[] }) => result.recoveries.map((recovery) => recovery.kind);

describe("localizeInstance: end to end", () => {
  it("goes from the issue through search and view to a prediction with the right file and span", async () => {
    process.env.LOCLAB_AGENT_TEST_KEY = "sk-test-secret-4711";
    const { result, requests } = await run(
      [
        call("search_code", { query: "def average" }),
        viewOps,
        submit({
          locations: [
            { ...averageSpan, path: "ops.py" },
            { path: "nope/missing.py", startLine: 1, endLine: 2, role: "read" },
            { path: "calc/cli.py", startLine: 6, endLine: 7, role: "read" },
          ],
          finding,
        }),
      ],
      { apiKeyEnv: "LOCLAB_AGENT_TEST_KEY" },
    ).finally(() => delete process.env.LOCLAB_AGENT_TEST_KEY);

    expect(result.outcome).toBe("finished");
    expect(result.turns).toBe(3);
    expect(result.droppedPaths).toEqual(["nope/missing.py"]);
    expect(result.prediction).toEqual({
      instanceId: "acme__calc-1",
      files: ["calc/ops.py", "calc/cli.py"],
      locations: [averageSpan, { path: "calc/cli.py", startLine: 6, endLine: 7, role: "read" }],
      finding,
    });
    expect(result.usage.apiCalls).toBe(3);
    expect(result.recoveries).toEqual([]);

    // Native tool calling: the four tools and submit_localization, with a zod-derived schema.
    expect(toolNames(requests[0])).toEqual([
      "view_file",
      "search_code",
      "repo_tree",
      "connected_tree",
      "submit_localization",
    ]);
    const submitSchema = requests[0]?.tools?.[4]?.function.parameters as {
      properties: { locations: { maxItems: number } };
      required: string[];
    };
    expect(submitSchema.properties.locations.maxItems).toBe(8);
    expect(submitSchema.required).toEqual(["locations", "finding"]);
    // The prompts come from the template files, filled.
    const [system, user] = requests[0]?.messages ?? [];
    expect(system?.content).toContain("at most 20 turns");
    expect(system?.content).toContain("- `connected_tree`: ");
    expect(system?.content).not.toContain("{{");
    expect(user?.content).toContain(FIXTURE_ISSUE.problem_statement);
    // Observations reach the model.
    expect(lastMessage(requests[1])?.content).toContain("calc/ops.py:8:");
    expect(lastMessage(requests[2])?.content).toContain("return sum(values) / (len(values) - 1)");

    // The client was given a key (via apiKeyEnv); it never reaches the trajectory.
    const text = await readFile(trajectoryPath, "utf8");
    expect(text).not.toContain("sk-test-secret-4711");
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.header.outcome.exit).toBe("submitted");
    expect(trajectory.header.instanceId).toBe("acme__calc-1");
    expect(trajectory.header.usage).toMatchObject({ apiCalls: 3 });
    expect(trajectory.steps.map((step) => step.toolCalls.map((c) => c.name))).toEqual([
      ["search_code"],
      ["view_file"],
      ["submit_localization"],
    ]);
    expect(trajectory.steps[1]?.toolCalls[0]).toMatchObject({ arguments: { path: "calc/ops.py" }, ok: true });
    expect(
      trajectory.steps.every(
        (step) => step.finishReason === "tool_calls" && step.usage !== undefined && step.startedAt !== undefined,
      ),
    ).toBe(true);
  });

  it("appends each step as it happens: mid-run the file has the header (running) and the finished steps", async () => {
    const seen: string[] = [];
    const script: ModelScript = (_request, index) => {
      if (index === 2) return undefined;
      if (index === 1) seen.push(...readFileSyncLines());
      return index === 0 ? viewOps : submit();
    };
    const readFileSyncLines = () => readFileSync(trajectoryPath, "utf8").trim().split("\n");
    const { result } = await run(script);
    expect(result.outcome).toBe("finished");
    expect(seen).toHaveLength(2);
    expect(JSON.parse(seen[0] ?? "{}").outcome).toEqual({ exit: "running", patch: null });
    expect(JSON.parse(seen[1] ?? "{}")).toMatchObject({ step: 0, toolCalls: [{ name: "view_file" }] });
  });
});

describe("localizeInstance: recovery branches", () => {
  it("malformed tool call: bad JSON and a schema misfit each get an observation saying what was wrong, and the run goes on", async () => {
    const { result, requests } = await run([
      call("view_file", '{"path": "calc/ops.py"'),
      call("view_file", { file: "calc/ops.py" }),
      submit(),
    ]);
    expect(result.outcome).toBe("finished");
    expect(kinds(result)).toEqual(["malformed_call", "malformed_call"]);
    expect(lastMessage(requests[1])).toMatchObject({
      role: "tool",
      content: expect.stringContaining("the arguments of view_file are not valid JSON"),
    });
    expect(lastMessage(requests[2])?.content).toContain("the arguments of view_file do not fit its schema");
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.steps[0]?.toolCalls[0]).toMatchObject({
      arguments: { raw: '{"path": "calc/ops.py"' },
      ok: false,
    });
    expect(trajectory.steps[0]?.error).toContain("malformed_call");
  });

  it("unknown tool: the observation lists the tools", async () => {
    const { result, requests } = await run([call("open_file", { path: "calc/ops.py" }), submit()]);
    expect(result.outcome).toBe("finished");
    expect(kinds(result)).toEqual(["unknown_tool"]);
    expect(lastMessage(requests[1])?.content).toBe(
      'Error: unknown tool "open_file". The tools are: view_file, search_code, repo_tree, connected_tree, submit_localization.\n',
    );
  });

  it("model answers with no tool call: told to call one, and the run goes on", async () => {
    const { result, requests } = await run([{ content: "Let me think about this." }, submit()]);
    expect(result.outcome).toBe("finished");
    expect(kinds(result)).toEqual(["no_tool_call"]);
    expect(lastMessage(requests[1])).toMatchObject({
      role: "user",
      content: expect.stringContaining("called no tool"),
    });
  });

  it("loop detection, same call: the call is not run again and the model is told it is repeating", async () => {
    const { result, requests } = await run([viewOps, call("view_file", { path: "calc/ops.py" }), submit()]);
    expect(result.outcome).toBe("finished");
    expect(kinds(result)).toEqual(["repeated_call"]);
    expect(lastMessage(requests[2])?.content).toContain(
      "you are repeating yourself: this exact view_file call was made in the previous turn",
    );
    expect(lastMessage(requests[2])?.content).not.toContain("def average");
  });

  it("loop detection, repeated output line: five in a row get a message that the model is repeating", async () => {
    const looping: ScriptTurn = {
      content: "I should look at ops.\n".repeat(5),
      toolCalls: [{ name: "repo_tree", arguments: "{}" }],
    };
    const { result, requests } = await run([looping, submit()]);
    expect(result.outcome).toBe("finished");
    expect(kinds(result)).toEqual(["repeated_line"]);
    const messages = requests[1]?.messages ?? [];
    expect(messages.at(-2)).toMatchObject({ role: "tool", content: expect.stringContaining("calc/") });
    expect(messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringContaining('repeats the line "I should look at ops."'),
    });
  });

  it("context truncation: over the limit, the oldest observations become stubs; system prompt, issue and the last 2 turns stay", async () => {
    const views = [1, 4, 8].map((start) => call("view_file", { path: "calc/ops.py", start, end: start + 3 }));
    const script = [call("repo_tree", {}), ...views, submit()];
    // A dry run without a limit gives the server's prompt-token count of each request. The limit
    // goes a little below the last one's, so that request must be cut (the estimator is
    // calibrated on those counts, within a few tens of tokens), while the first request, estimated
    // before any count at 0.3 tokens a character (about 90 tokens above its count here), fits.
    const dry = await run(script);
    expect(dry.result.outcome).toBe("finished");
    const dryUsage = (await readTrajectoryFile(trajectoryPath)).steps.map((step) => step.usage?.promptTokens ?? 0);
    await server?.close();
    const limit = (dryUsage[4] as number) - 65;
    const { result, requests } = await run(script, { contextLimitTokens: limit });
    expect(result.outcome).toBe("finished");
    const untouched = requests[0]?.messages ?? [];
    const last = requests[4]?.messages ?? [];
    expect(last.slice(0, 2)).toEqual(untouched.slice(0, 2));
    const tools = last.filter((message) => message.role === "tool").map((message) => message.content as string);
    expect(tools).toHaveLength(4);
    expect(tools[0]).toMatch(/^\[observation of \d+ characters removed to fit the context window\]$/);
    expect(tools[2]).toContain("4\tdef add(a, b):");
    expect(tools[3]).toContain(" 8\tdef average(values):");
    expect(kinds(result)).toContain("context_truncated");
    // Without a limit nothing is cut.
    expect(
      requests[1]?.messages
        .filter((m) => m.role === "tool")
        .every((m) => !String(m.content).startsWith("[observation of")),
    ).toBe(true);
  });

  it("forced final synthesis: the last turn offers only submit_localization and asks for the answer; a submission there is forced_final", async () => {
    const { result, requests } = await run([viewOps, submit()], { maxTurns: 2 });
    expect(result.outcome).toBe("forced_final");
    expect(result.prediction?.files).toEqual(["calc/ops.py"]);
    expect(toolNames(requests[1])).toEqual(["submit_localization"]);
    expect(lastMessage(requests[1])).toMatchObject({
      role: "user",
      content: expect.stringContaining("This is your last turn"),
    });
    expect((await readTrajectoryFile(trajectoryPath)).header.outcome.exit).toBe("submitted");
  });

  it("invalid final answer: one repair request (only submit_localization offered), then invalid_final", async () => {
    const backwards = { locations: [{ ...averageSpan, startLine: 12, endLine: 8 }], finding };
    const { result, requests } = await run([submit(backwards), submit({ locations: [averageSpan] })]);
    expect(result.outcome).toBe("invalid_final");
    expect(result.prediction).toBeUndefined();
    expect(result.turns).toBe(2);
    expect(kinds(result)).toEqual(["final_repair"]);
    expect(lastMessage(requests[1])?.content).toContain(
      "locations.0.endLine: startLine must not be greater than endLine",
    );
    expect(toolNames(requests[1])).toEqual(["submit_localization"]);
    expect(result.error).toContain("finding");
    expect((await readTrajectoryFile(trajectoryPath)).header.outcome.exit).toBe("format_error");
  });

  it("invalid final answer repaired: paths that match no file are refused, the corrected answer is accepted", async () => {
    const nowhere = { locations: [{ path: "src/stats.py", startLine: 1, endLine: 3, role: "edit" }], finding };
    const { result, requests } = await run([submit(nowhere), submit()]);
    expect(result.outcome).toBe("finished");
    expect(lastMessage(requests[1])?.content).toContain('no location names a file of the repository ("src/stats.py")');
    expect(result.prediction?.locations).toEqual([averageSpan]);
  });
});

describe("localizeInstance: budgets and errors", () => {
  it("turn budget: no submission on the forced final turn is budget_exhausted (step_limit)", async () => {
    const { result } = await run([viewOps, { content: "I am not sure yet." }], { maxTurns: 2 });
    expect(result).toMatchObject({ outcome: "budget_exhausted", budget: "turns", turns: 2 });
    expect((await readTrajectoryFile(trajectoryPath)).header.outcome.exit).toBe("step_limit");
  });

  it("token budget: no call is made once the total tokens reach maxTotalTokens", async () => {
    const big: ScriptTurn = { ...viewOps, usage: { promptTokens: 900, completionTokens: 200 } };
    const { result, requests } = await run([big, submit()], { maxTotalTokens: 1_000 });
    expect(result).toMatchObject({ outcome: "budget_exhausted", budget: "tokens", turns: 1 });
    expect(result.usage).toEqual({ promptTokens: 900, completionTokens: 200, totalTokens: 1_100, apiCalls: 1 });
    expect(requests).toHaveLength(1);
    expect((await readTrajectoryFile(trajectoryPath)).header.outcome.exit).toBe("cost_limit");
  });

  it("wall-time budget, with an injected clock: the run stops once maxWallMs has passed", async () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const script: ModelScript = (_request, index) => {
      clock += 40_000; // each model call "takes" 40 s
      return index === 0 ? viewOps : index === 1 ? call("repo_tree", {}) : submit();
    };
    const { result, requests } = await run(script, { maxWallMs: 60_000, now: () => clock });
    expect(result).toMatchObject({ outcome: "budget_exhausted", budget: "wall_time", turns: 2 });
    expect(requests).toHaveLength(2);
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.header.outcome.exit).toBe("time_limit");
    expect(trajectory.header.startedAt).toBe("2026-01-01T00:00:00.000Z");
    expect(trajectory.header.endedAt).toBe("2026-01-01T00:01:20.000Z");
  });

  it("transport failure after the client's retries is model_error; the retries are in the trajectory", async () => {
    const { result, requests } = await run([viewOps, { fault: "http-503" }, { fault: "http-500" }], { maxRetries: 1 });
    expect(result).toMatchObject({ outcome: "model_error", turns: 1 });
    expect(result.error).toContain("after 2 attempt(s)");
    expect(requests).toHaveLength(3);
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.header.outcome.exit).toBe("error");
    expect(trajectory.steps).toHaveLength(2);
    expect(trajectory.steps[1]?.error).toMatch(
      /^retry after attempt 1 \(http-5xx, waited 1 ms\).*; model error: model transport failed after 2 attempt\(s\)/,
    );
  });

  it("a retried call that then succeeds records the retry in its step and goes on", async () => {
    const { result } = await run([{ fault: "http-503" }, submit()], { maxRetries: 1 });
    expect(result.outcome).toBe("finished");
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.steps[0]?.error).toMatch(/^retry after attempt 1 \(http-5xx/);
    // The raw step line keeps the retry as a record, and the digest of the request's messages.
    const [, stepLine] = readFileSync(trajectoryPath, "utf8").trim().split("\n");
    const step = JSON.parse(stepLine ?? "{}") as {
      retries?: { attempt: number; error: string }[];
      messagesDigest?: string;
    };
    expect(step.retries).toEqual([expect.objectContaining({ attempt: 1, error: "http-5xx" })]);
    expect(step.messagesDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a tool that throws (the checkout's git data vanished mid-run): the step keeps the model's output and the note, the header says error", async () => {
    // A real failure, not a planted one: the file list of a git workspace is read lazily, so
    // removing .git after opening makes the first search fail inside git (not a ToolError).
    workspace = await openWorkspace({ root: repo.root, files: "git" });
    await rm(join(repo.root, ".git"), { recursive: true, force: true });
    server = await startScriptedModelServer({
      script: [{ content: "Search first.", ...call("search_code", { query: "def average" }) }],
    });
    const client = createModelClient({
      baseURL: server.url,
      model: "scripted-model",
      backoffMs: 1,
      timeoutMs: 5_000,
      maxRetries: 1,
    });
    await expect(localizeInstance({ instance: FIXTURE_ISSUE, workspace, client, trajectoryPath })).rejects.toThrow();
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.header.outcome.exit).toBe("error");
    expect(trajectory.steps).toHaveLength(1);
    expect(trajectory.steps[0]?.output).toBe("Search first.");
    expect(trajectory.steps[0]?.error).toMatch(/^harness error: /);
  });
});
