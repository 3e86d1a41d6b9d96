import { join } from "node:path";
import { SherlocToolbox, openWorkspace, renderSherlocTree, sherlocVisiblePaths, type Workspace } from "@loclab/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createModelClient,
  localizeInstance,
  type ModelScript,
  parseSherlocAnswer,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "../src/index.js";
import { FIXTURE_FINDING, FIXTURE_ISSUE, makeFixtureRepo } from "./fixture-repo.js";
import { readTrajectoryFile } from "./read-trajectory-file.js";

// The `sherloc` profile over real HTTP: a scripted server answers in SHERLOC's text protocol,
// SHERLOC's tools run over the calc fixture (a real git repository in a temp folder).
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

const toolCall = (json: unknown, think = "Let me look.") => ({
  content: `<think>${think}</think>\n<tool_call>\n${JSON.stringify(json)}\n</tool_call>`,
});
const findings = Object.entries({
  "Location explanation": FIXTURE_FINDING.locationExplanation,
  "Root cause": FIXTURE_FINDING.rootCause,
  "Solution idea": FIXTURE_FINDING.solutionIdea,
  Dependencies: FIXTURE_FINDING.dependencies,
  "Testing impact": FIXTURE_FINDING.testingImpact,
})
  .map(([label, text]) => `• ${label}: ${text}`)
  .join("\n");
const answer = {
  content: `<think>Found it.</think>\n<findings>\n${findings}\n</findings>\n<locations>\ncalc/ops.py:L8-L12\ncalc/missing.py:L1-L2\nsee the division\n</locations>`,
};

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
    profile: "sherloc",
    ...(maxTurns ? { maxTurns } : {}),
  });
  return { result, requests: server.requests.flatMap((request) => (request.body ? [request.body] : [])) };
}

describe("localizeInstance, profile sherloc", () => {
  it("speaks SHERLOC's text protocol: no tools sent, the filtered tree in the first message, raw tool output back, the answer read from <locations>", async () => {
    const { result, requests } = await run([
      toolCall({ codebase_search: { query: "DEF AVERAGE" } }),
      toolCall({ tool: "view_file", path: "calc/ops.py", view_range: [8, 12] }),
      answer,
    ]);
    expect(result.outcome).toBe("finished");
    expect(requests.every((request) => request.tools === undefined)).toBe(true);
    const first = requests[0]?.messages ?? [];
    expect(first[0]?.content).toContain("<tool_call>");
    expect(first[0]?.content).toContain("<locations>");
    // SHERLOC hides tests/ (an excluded folder) and README.md (not an allowed extension).
    expect(first[1]?.content).toBe(
      `\n### Problem Description\n${FIXTURE_ISSUE.problem_statement}\n\n### Repository Structure\n.\n└── calc\n    |-- __init__.py\n    |-- cli.py\n    └── ops.py\n`,
    );
    const search = requests[1]?.messages.at(-1);
    expect(search?.role).toBe("user");
    expect(search?.content).toMatch(
      /^Search results for: 'DEF AVERAGE' \(showing top 1 files with most matches\)\n={50}\n\nFile: calc\/ops\.py\n\n--- Snippet 1 \(match on line 8\) ---\n/,
    );
    expect(search?.content).toContain(">    8: def average(values):");
    expect(requests[2]?.messages.at(-1)?.content).toBe(
      'File: calc/ops.py (lines 8-12)\n   8: def average(values):\n   9:     """Return the arithmetic mean of values."""\n  10:     if not values:\n  11:         raise ValueError("average of an empty sequence")\n  12:     return sum(values) / (len(values) - 1)',
    );
    expect(result.prediction).toMatchObject({
      files: ["calc/ops.py"],
      locations: [{ path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit" }],
      status: "success",
      finding: FIXTURE_FINDING,
    });
    expect(result.droppedPaths).toEqual(["calc/missing.py"]);
    const trajectory = await readTrajectoryFile(trajectoryPath);
    expect(trajectory.steps.map((step) => step.toolCalls.map((call) => call.name))).toEqual([
      ["codebase_search"],
      ["view_file"],
      ["sherloc_answer"],
    ]);
  });

  it("the last turn asks for the answer; a tool call then ends the run at the step limit (SHERLOC's max_steps_exceeded)", async () => {
    const { result, requests } = await run(
      [toolCall({ repo_tree: {} }), toolCall({ view_file: { path: "calc/ops.py" } })],
      2,
    );
    expect(result.outcome).toBe("budget_exhausted");
    expect(result.exit).toBe("step_limit");
    expect(requests[1]?.messages.at(-1)?.content).toMatch(/last turn.*<locations>/s);
    expect(requests[1]?.messages.at(-2)?.content).toMatch(/^\.\n└── calc/);
  });

  it("a reply with neither block is nudged, a malformed <tool_call> too", async () => {
    const { result, requests } = await run([
      { content: "I think the bug is in the mean." },
      { content: "<tool_call>{not json</tool_call>" },
      answer,
    ]);
    expect(result.outcome).toBe("finished");
    expect(result.recoveries.map((recovery) => recovery.kind)).toEqual(["no_tool_call", "malformed_call"]);
    expect(requests[1]?.messages.at(-1)?.content).toMatch(/neither a <tool_call> block nor a <locations> block/);
  });
});

describe("SHERLOC's answers and tools", () => {
  it("reads a call in either of SHERLOC's forms, the first block only, a <tool_call> before <locations>", () => {
    expect(parseSherlocAnswer('<tool_call>{"view_file": {"path": "a.py"}}</tool_call>')).toEqual({
      ok: true,
      call: { name: "view_file", arguments: { path: "a.py" } },
    });
    expect(
      parseSherlocAnswer(
        '<tool_call>\n{"tool": "codebase_search", "query": "x"}\n</tool_call><tool_call>{"repo_tree": {}}</tool_call>',
      ),
    ).toEqual({ ok: true, call: { name: "codebase_search", arguments: { query: "x" } } });
    expect(parseSherlocAnswer('<tool_call>{"repo_tree": {}}}</tool_call>')).toEqual({
      ok: true,
      call: { name: "repo_tree", arguments: {} },
    });
    expect(
      parseSherlocAnswer('<locations>\na.py:L1\n</locations>\n<tool_call>{"repo_tree": {}}</tool_call>'),
    ).toMatchObject({ ok: true, call: { name: "repo_tree" } });
    expect(parseSherlocAnswer("<locations>\na.py:L1-L3\n</locations>")).toEqual({
      ok: true,
      call: {
        name: "sherloc_answer",
        arguments: {
          locations: [{ file_path: "a.py", start_line: 1, end_line: 3, raw: "a.py:L1-L3" }],
          findings: null,
        },
      },
    });
    expect(parseSherlocAnswer('<tool_call>{"a": 1, "b": 2}</tool_call>')).toMatchObject({
      ok: false,
      kind: "malformed",
    });
  });

  it("hides what SHERLOC's loader hides: excluded names at any depth, dotted names with another extension", () => {
    expect(
      sherlocVisiblePaths([
        "pkg/a.py",
        "pkg/tests/t.py",
        "docs/x.py",
        "setup.cfg",
        "README.md",
        "Makefile",
        ".github/w.py",
        "pkg.egg-info/x.py",
        "pkg/data/d.py",
        "pkg/b.pyx",
      ]),
    ).toEqual(["pkg/a.py", "setup.cfg", "Makefile"]);
    expect(renderSherlocTree(["pkg/__init__.py", "pkg/cache.py", "setup.py"])).toBe(
      ".\n|-- pkg\n|   |-- __init__.py\n|   └── cache.py\n└── setup.py",
    );
    // A shuffled tree is filtered by its original names: the renamed tests/ stays hidden.
    const original: Record<string, string> = {
      "d_k3x9/m_p8w1.py": "pkg/core.py",
      "d_0hq7/m_1a2b.py": "tests/test_core.py",
      "d_0hq7/m_9z8y.cfg": "tests/setup.cfg",
    };
    expect(sherlocVisiblePaths(Object.keys(original), { originalPathOf: (path) => original[path] })).toEqual([
      "d_k3x9/m_p8w1.py",
    ]);
  });

  it("view_file: SHERLOC's range rules, cap and suggestions", async () => {
    const tools = new SherlocToolbox(workspace, { maxViewLines: 3 });
    expect((await tools.run("view_file", { path: "calc/ops.py", view_range: [11, -1] })).text).toBe(
      'File: calc/ops.py (lines 11-12)\n  11:         raise ValueError("average of an empty sequence")\n  12:     return sum(values) / (len(values) - 1)',
    );
    expect((await tools.run("view_file", { path: "calc/ops.py", view_range: [1, 10] })).text).toMatch(
      /^File: calc\/ops\.py \(lines 1-10\) \[TRUNCATED - Original file has 12 total lines\]\nWARNING: File content truncated\. Showing 3 lines out of 10 requested lines/,
    );
    expect((await tools.run("view_file", { path: "ops.py" })).text).toBe(
      "Error: File not found at path 'ops.py'\n\n💡 Did you mean one of these files?\n   1. calc/ops.py\n\nTry using the exact path from the suggestions above.",
    );
    expect((await tools.run("view_file", { path: "calc/ops.py", view_range: [1, "x"] })).text).toBe(
      'Error: Invalid view_range format. Expected [start, end] or [start, -1], got [1,"x"]',
    );
    expect((await tools.run("view_file", { path: "tests/test_ops.py" })).ok).toBe(false);
    expect((await tools.run("grep", {})).text).toBe("Error: Unknown tool 'grep'");
  });

  it("connected_tree: imports and importers in SHERLOC's format", async () => {
    const tools = new SherlocToolbox(workspace);
    expect((await tools.run("connected_tree", { file: "calc/ops.py" })).text).toBe(
      "═══ calc/ops.py [12L] ═══\n\n→ IMPORTS: None\n\n← IMPORTED BY (2):\n   • calc/__init__.py\n   • calc/cli.py",
    );
    expect((await tools.run("connected_tree", {})).text).toMatch(
      /^═══ REPOSITORY CONNECTION SUMMARY ═══\n\nTOP CONNECTED FILES:\n 1\. calc\/ops\.py\n {4}→ imports: 0, ← imported by: 2/,
    );
  });
});
