import { describe, expect, it } from "vitest";
import {
  TOOL_NAMES,
  type ToolCall,
  openWorkspace,
  runTool,
  toolDefinitions,
  toolParametersSchema,
} from "../src/index.js";
import { writeSampleRepo } from "./sample-repo.js";

const root = writeSampleRepo();

/** One call of every kind and outcome, for the determinism check. */
const CALLS: ToolCall[] = [
  { name: "view_file", arguments: { path: "src/app/core.py" } },
  { name: "view_file", arguments: '{"path": "utils/text.py", "start": 2, "end": 4}' },
  { name: "view_file", arguments: { path: "views.py" } },
  { name: "view_file", arguments: { path: "__init__.py" } },
  { name: "view_file", arguments: { path: "data/long_line.txt" } },
  { name: "view_file", arguments: { path: "data/blob.bin" } },
  { name: "search_code", arguments: { query: "run" } },
  { name: "search_code", arguments: { query: "RUN", ignoreCase: true, glob: "*.txt" } },
  { name: "search_code", arguments: { query: "line", maxHits: 5 } },
  { name: "repo_tree", arguments: {} },
  {
    name: "repo_tree",
    arguments: { path: "src", depth: 4, hideTests: true, hideDocs: true, hideVendored: false, hideHidden: false },
  },
  { name: "connected_tree", arguments: { path: "src/app/core.py", depth: 3 } },
  { name: "connected_tree", arguments: { path: "text.py", direction: "importedBy" } },
  { name: "view_file", arguments: { path: "../x" } },
];

describe("runTool", () => {
  it("validates arguments against the tool's schema and explains what is wrong", async () => {
    const workspace = await openWorkspace({ root });
    expect(await runTool(workspace, { name: "grep", arguments: {} })).toMatchObject({
      ok: false,
      error: {
        code: "malformed-call",
        message: 'unknown tool "grep"; the tools are view_file, search_code, repo_tree, connected_tree',
      },
    });
    expect(await runTool(workspace, { name: "view_file", arguments: "{path: x}" })).toMatchObject({
      ok: false,
      error: {
        code: "malformed-call",
        message: expect.stringContaining("the arguments of view_file are not valid JSON"),
      },
    });
    const wrong = await runTool(workspace, { name: "view_file", arguments: { path: 3, start: 0, extra: true } });
    expect(wrong).toMatchObject({ ok: false, error: { code: "malformed-call" } });
    expect(wrong.text).toMatch(
      /^Error: the arguments of view_file do not fit its schema: path: .*; start: .*; arguments: Unrecognized key: "extra"\n$/,
    );
    expect(await runTool(workspace, { name: "search_code", arguments: "" })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("query: ") },
    });
  });

  it("turns refusals into observations and lowers maxHits to the configured ceiling", async () => {
    const workspace = await openWorkspace({ root, limits: { searchMaxHits: 4 } });
    expect(await runTool(workspace, { name: "view_file", arguments: { path: "/etc/passwd" } })).toMatchObject({
      ok: false,
      error: { code: "refused" },
    });
    const search = await runTool(workspace, { name: "search_code", arguments: { query: "line", maxHits: 1000 } });
    expect(search.ok && search.name === "search_code" && "hits" in search.result ? search.result.hits.length : -1).toBe(
      4,
    );
  });

  it("gives byte-identical results and texts across runs and fresh workspaces", async () => {
    const run = async () => {
      const workspace = await openWorkspace({ root });
      const outcomes = [];
      for (const call of CALLS) outcomes.push(await runTool(workspace, call));
      return JSON.stringify(outcomes);
    };
    const first = await run();
    const second = await run();
    expect(second).toBe(first);
    // The same calls in reverse order on one workspace (warm caches, graph built midway) give the same outcomes.
    const workspace = await openWorkspace({ root });
    const reversed = [];
    for (const call of [...CALLS].reverse()) reversed.push(await runTool(workspace, call));
    expect(JSON.stringify(reversed.reverse())).toBe(first);
  });
});

describe("tool definitions for function calling", () => {
  it("exports one JSON Schema per tool, in the OpenAI tools format", () => {
    const definitions = toolDefinitions();
    expect(definitions.map((definition) => definition.function.name)).toEqual([...TOOL_NAMES]);
    for (const definition of definitions) {
      expect(definition.type).toBe("function");
      expect(definition.function.description.length).toBeGreaterThan(40);
      expect(definition.function.parameters).toMatchObject({ type: "object", additionalProperties: false });
      expect(JSON.stringify(definition.function.parameters)).not.toContain("$schema");
      expect(JSON.stringify(definition.function.parameters)).not.toContain("9007199254740991");
    }
  });

  it("describes view_file's input exactly", () => {
    expect(toolParametersSchema("view_file")).toEqual({
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, description: expect.stringContaining("Matched fuzzily") },
        start: { type: "integer", minimum: 1, description: "First line to show (1-based). Default 1." },
        end: { type: "integer", minimum: 1, description: expect.stringContaining("150 lines / 10,000 characters") },
      },
      required: ["path"],
      additionalProperties: false,
    });
    expect(toolParametersSchema("search_code")).toMatchObject({ required: ["query"] });
    expect(toolParametersSchema("repo_tree")).not.toHaveProperty("required");
    expect(toolParametersSchema("connected_tree")).toMatchObject({
      properties: { direction: { enum: ["both", "imports", "importedBy"] } },
    });
  });
});
