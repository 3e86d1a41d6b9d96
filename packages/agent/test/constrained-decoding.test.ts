import { join } from "node:path";
import { openWorkspace, type Workspace } from "@loclab/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  constrainedStringChars,
  createModelClient,
  DEFAULT_JUDGE_RUBRIC,
  judgeAnswerSchema,
  localizeInstance,
  parseTextToolCall,
  readConstrainedCall,
  type ScriptedModelServer,
  startScriptedModelServer,
  textToolCallSchema,
  toolCallSchema,
} from "../src/index.js";
import { FIXTURE_FINDING, FIXTURE_ISSUE, FIXTURE_SPAN, makeFixtureRepo } from "./fixture-repo.js";
import { readTrajectoryFile } from "./read-trajectory-file.js";

// Constrained tool-call decoding over real HTTP: the scripted server stands in for a server that
// enforces response_format (it answers with plain content, as vLLM's structured outputs do); what
// is checked is what the client sends and how the answer's JSON becomes the turn's call.
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

const tools = [
  {
    name: "view_file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  { name: "repo_tree" },
];

describe("the schemas of a constrained answer", () => {
  it("one alternative per tool, the name a constant and the arguments the tool's own schema", () => {
    const { name, schema } = toolCallSchema(tools);
    expect(name).toBe("tool_call");
    const alternatives = (schema as { anyOf: Array<{ properties: Record<string, unknown>; required: string[] }> })
      .anyOf;
    expect(alternatives.map((alternative) => alternative.properties.name)).toEqual([
      { const: "view_file" },
      { const: "repo_tree" },
    ]);
    expect(alternatives[0]!.properties.arguments).toBe(tools[0]!.parameters);
    expect(alternatives[1]!.properties.arguments).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    expect(alternatives.every((alternative) => alternative.required.join() === "name,arguments")).toBe(true);
    // A single tool needs no anyOf; text mode names the tool "tool".
    expect(toolCallSchema([tools[0]!]).schema).toMatchObject({ properties: { name: { const: "view_file" } } });
    expect(textToolCallSchema([tools[0]!]).schema).toMatchObject({ properties: { tool: { const: "view_file" } } });
    expect(() => toolCallSchema([])).toThrow(/at least one tool/);
  });

  it("the judge's: every criterion, feedback then an integer score 1-5", () => {
    const { schema } = judgeAnswerSchema(DEFAULT_JUDGE_RUBRIC);
    expect((schema as { required: string[] }).required).toEqual(DEFAULT_JUDGE_RUBRIC.criteria.map((c) => c.id));
    expect(schema).toMatchObject({
      properties: {
        rootCause: { properties: { score: { enum: [1, 2, 3, 4, 5] } }, required: ["feedback", "score"] },
      },
    });
  });

  it("reads a call only from a whole JSON object naming an offered tool with object arguments", () => {
    const call = readConstrainedCall('{"name":"view_file","arguments":{"path":"a.py"}}', tools, 3);
    expect(call).toMatchObject({ name: "view_file", arguments: '{"path":"a.py"}' });
    expect(call?.id).toMatch(/^call_[0-9a-f]{24}$/);
    // The same text on the same turn gives the same id (a replayed conversation matches).
    expect(readConstrainedCall('{"name":"view_file","arguments":{"path":"a.py"}}', tools, 3)?.id).toBe(call?.id);
    expect(readConstrainedCall('{"name":"view_file","arguments":{"path":"a.py"}}', tools, 4)?.id).not.toBe(call?.id);
    for (const text of [
      '{"name":"view_file","arguments":{"path":"a.p', // cut at the output limit
      '{"name":"rm_rf","arguments":{}}',
      '{"name":"view_file","arguments":"a.py"}',
      '["view_file"]',
      null,
    ])
      expect(readConstrainedCall(text, tools, 0)).toBeUndefined();
  });

  it("text mode reads a bare JSON object answer as the turn's call", () => {
    expect(parseTextToolCall('{"tool": "repo_tree", "arguments": {}}')).toEqual({
      ok: true,
      name: "repo_tree",
      arguments: "{}",
    });
    expect(parseTextToolCall("I would call repo_tree.")).toMatchObject({ ok: false, kind: "missing" });
  });
});

describe("localizeInstance with decoding constrained, over HTTP", () => {
  const submit = { locations: [FIXTURE_SPAN], finding: FIXTURE_FINDING };

  it("native: each request carries the tools, tool_choice none and the call's schema; the JSON answers are the calls", async () => {
    server = await startScriptedModelServer({
      script: [
        { content: JSON.stringify({ name: "view_file", arguments: { path: "calc/ops.py" } }) },
        { content: JSON.stringify({ name: "submit_localization", arguments: submit }) },
      ],
    });
    const client = createModelClient({ baseURL: server.url, model: "scripted", maxRetries: 0 });
    const result = await localizeInstance({
      instance: FIXTURE_ISSUE,
      workspace,
      client,
      trajectoryPath,
      toolCalls: "constrained",
    });
    expect(result.outcome).toBe("finished");
    expect(result.prediction?.locations).toEqual([FIXTURE_SPAN]);
    const bodies = server.requests.flatMap((request) => (request.body ? [request.body] : []));
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body.tool_choice).toBe("none");
      expect(body.tools?.map((tool) => tool.function.name)).toContain("view_file");
      const format = body.response_format as {
        type: string;
        json_schema: { name: string; schema: { anyOf: unknown[] } };
      };
      expect(format.type).toBe("json_schema");
      expect(format.json_schema.name).toBe("tool_call");
      expect(format.json_schema.schema.anyOf).toHaveLength(body.tools!.length);
    }
    // The answer went back into the conversation as a native call, its text kept.
    const second = bodies[1]!.messages;
    expect(second.at(-2)).toMatchObject({
      role: "assistant",
      content: expect.stringContaining('"name":"view_file"'),
      tool_calls: [{ type: "function", function: { name: "view_file", arguments: '{"path":"calc/ops.py"}' } }],
    });
    expect(second.at(-1)).toMatchObject({ role: "tool" });
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.header.decoding).toEqual({ toolCalls: "constrained" });
    expect(trajectory.steps.map((step) => step.toolCalls.map((call) => call.name))).toEqual([
      ["view_file"],
      ["submit_localization"],
    ]);
  });

  it("the answer's budget bounds its strings and the submission names only the workspace's files; the model is told the tools' own schemas", async () => {
    server = await startScriptedModelServer({
      script: [{ content: JSON.stringify({ name: "submit_localization", arguments: submit }) }],
    });
    const client = createModelClient({ baseURL: server.url, model: "scripted", maxRetries: 0, maxOutputTokens: 256 });
    const result = await localizeInstance({
      instance: FIXTURE_ISSUE,
      workspace,
      client,
      trajectoryPath,
      toolCalls: "constrained",
    });
    expect(result.outcome).toBe("finished");
    const body = server.requests[0]!.body!;
    const alternatives = (
      body.response_format as unknown as { json_schema: { schema: { anyOf: Array<Record<string, any>> } } }
    ).json_schema.schema.anyOf;
    const submitArgs = alternatives.find((alt) => alt.properties.name.const === "submit_localization")!.properties
      .arguments;
    const files = (await workspace.files()).filter((entry) => entry.kind === "file").map((entry) => entry.path);
    expect(files.length).toBeGreaterThan(1);
    expect(submitArgs.properties.locations.items.properties.path).toMatchObject({ enum: files });
    // 256 tokens: a quarter, 64 characters, on every string without a bound of its own.
    expect(submitArgs.properties.finding.properties.rootCause).toMatchObject({ type: "string", maxLength: 64 });
    expect(submitArgs.properties.locations.items.properties.symbol).toMatchObject({ maxLength: 64 });
    const viewArgs = alternatives.find((alt) => alt.properties.name.const === "view_file")!.properties.arguments;
    expect(viewArgs.properties.path).toMatchObject({ type: "string", maxLength: 64 });
    // What the model is told: the tool's schema as it was, no enumeration, no bound added.
    const told = body.tools!.find((tool) => tool.function.name === "submit_localization")!.function
      .parameters as Record<string, any>;
    expect(told.properties.locations.items.properties.path.enum).toBeUndefined();
    expect(told.properties.finding.properties.rootCause.maxLength).toBeUndefined();
    expect(constrainedStringChars(undefined)).toBeUndefined();
    expect(constrainedStringChars(64)).toBe(32);
    expect(constrainedStringChars(4096)).toBe(1024);
  });

  it("text: no tools; the schema of {tool, arguments}; free decoding sends neither and records free", async () => {
    server = await startScriptedModelServer({
      script: [{ content: JSON.stringify({ tool: "submit_localization", arguments: submit }) }],
    });
    const client = createModelClient({ baseURL: server.url, model: "scripted", maxRetries: 0 });
    const constrained = await localizeInstance({
      instance: FIXTURE_ISSUE,
      workspace,
      client,
      trajectoryPath,
      toolMode: "text",
      toolCalls: "constrained",
    });
    expect(constrained.outcome).toBe("finished");
    const [body] = server.requests.flatMap((request) => (request.body ? [request.body] : []));
    expect(body?.tools).toBeUndefined();
    expect(body?.tool_choice).toBeUndefined();
    expect((body?.response_format as { json_schema: { name: string } }).json_schema.name).toBe("text_tool_call");
    await server.close();
    server = await startScriptedModelServer({
      script: [{ toolCalls: [{ name: "submit_localization", arguments: JSON.stringify(submit) }] }],
    });
    const free = await localizeInstance({
      instance: FIXTURE_ISSUE,
      workspace,
      client: createModelClient({ baseURL: server.url, model: "scripted", maxRetries: 0 }),
      trajectoryPath,
    });
    expect(free.outcome).toBe("finished");
    const [freeBody] = server.requests.flatMap((request) => (request.body ? [request.body] : []));
    expect(freeBody?.response_format).toBeUndefined();
    expect(freeBody?.tool_choice).toBeUndefined();
    expect((await readTrajectoryFile(trajectoryPath)).header.decoding).toEqual({ toolCalls: "free" });
  });

  it("the sherloc profile refuses constrained decoding (its answers are free text)", async () => {
    const client = createModelClient({ baseURL: "http://127.0.0.1:9/v1", model: "m", maxRetries: 0 });
    await expect(
      localizeInstance({
        instance: FIXTURE_ISSUE,
        workspace,
        client,
        trajectoryPath,
        profile: "sherloc",
        toolCalls: "constrained",
      }),
    ).rejects.toThrow(/sherloc profile/);
  });
});
