import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWorkspace, runTool } from "@loclab/tools";
import { describe, expect, it } from "vitest";
import { touchesOfCall } from "../src/touches.js";

// Observations made by the real tools on a real folder: the touches are read back from the
// text the model saw, as they are from any trajectory.
async function workspace() {
  const root = await mkdtemp(join(tmpdir(), "loclab-touches-"));
  const lines = Array.from({ length: 200 }, (_, i) => (i === 119 ? "def parse_total(values):" : `x_${i} = ${i}`));
  await writeFile(join(root, "parse.py"), `${lines.join("\n")}\n`);
  await writeFile(join(root, "cli.py"), "from parse import parse_total\nprint(parse_total([1]))\n");
  return openWorkspace({ root, files: "walk" });
}

describe("what a tool call looked at", () => {
  it("view_file: the file and the window the tool showed (not the one asked for)", async () => {
    const ws = await workspace();
    const call = { name: "view_file", arguments: { path: "PARSE.py", start: 100, end: 400 } };
    const outcome = await runTool(ws, call);
    expect(touchesOfCall({ ...call, observation: outcome.text })).toEqual([
      { path: "parse.py", lines: [{ start: 100, end: 200 }], kind: "view" },
    ]);
  });

  it("search_code: each hit's line, grouped by file", async () => {
    const ws = await workspace();
    const call = { name: "search_code", arguments: { query: "parse_total" } };
    const outcome = await runTool(ws, call);
    expect(touchesOfCall({ ...call, observation: outcome.text })).toEqual([
      {
        path: "cli.py",
        lines: [
          { start: 1, end: 1 },
          { start: 2, end: 2 },
        ],
        kind: "search",
      },
      { path: "parse.py", lines: [{ start: 120, end: 120 }], kind: "search" },
    ]);
  });

  it("a view of a missing file touches nothing; trees and edits name the file without lines; read_file's window", async () => {
    const ws = await workspace();
    const missing = { name: "view_file", arguments: { path: "nope/absent.py" } };
    expect(touchesOfCall({ ...missing, observation: (await runTool(ws, missing)).text })).toEqual([]);
    expect(touchesOfCall({ name: "connected_tree", arguments: { path: "./parse.py" } })).toEqual([
      { path: "parse.py", lines: [], kind: "list" },
    ]);
    expect(
      touchesOfCall({ name: "edit_file", arguments: { path: "/testbed/calc/ops.py", old_text: "a", new_text: "b" } }),
    ).toEqual([{ path: "calc/ops.py", lines: [], kind: "edit" }]);
    expect(
      touchesOfCall({ name: "read_file", arguments: { path: "calc/ops.py", start_line: 10 }, observation: "a\nb\nc" }),
    ).toEqual([{ path: "calc/ops.py", lines: [{ start: 10, end: 12 }], kind: "view" }]);
    expect(touchesOfCall({ name: "bash", arguments: { command: "cat x.py" } })).toEqual([]);
  });
});
