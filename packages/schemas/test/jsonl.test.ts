import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InstanceSchema, JsonlLineError, readJsonl, streamJsonl } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "loclab-jsonl-"));
const good = (id: string) =>
  JSON.stringify({ instance_id: id, repo: "o/r", base_commit: "abc", problem_statement: "p", patch: "" });

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("streamJsonl", () => {
  it("yields records with their line numbers, passing over blank lines, a BOM and CRLF", async () => {
    const path = file("ok.jsonl", `\uFEFF${good("a")}\r\n\r\n${good("b")}\n`);
    const seen: [number, string][] = [];
    for await (const { line, value } of streamJsonl(path, { schema: InstanceSchema })) seen.push([line, value.instance_id]);
    expect(seen).toEqual([
      [1, "a"],
      [3, "b"],
    ]);
  });

  it("stops at the first bad line, naming file, line and reason, after yielding what came before", async () => {
    const path = file("bad.jsonl", `${good("a")}\n{"instance_id": "b", oops}\n${good("c")}\n`);
    const seen: string[] = [];
    const run = async () => {
      for await (const { value } of streamJsonl(path, { schema: InstanceSchema })) seen.push(value.instance_id);
    };
    await expect(run()).rejects.toThrow(JsonlLineError);
    await expect(run()).rejects.toThrow(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2: invalid JSON`));
    expect(seen[0]).toBe("a");
  });

  it("skips and counts bad lines into the caller's list when told to", async () => {
    const path = file("mixed.jsonl", `${good("a")}\nnot json\n{"instance_id": "x", "repo": "o/r"}\n${good("d")}\n`);
    const skipped: JsonlLineError[] = [];
    const ids: string[] = [];
    for await (const { value } of streamJsonl(path, { schema: InstanceSchema, onBadLine: "skip", skipped })) ids.push(value.instance_id);
    expect(ids).toEqual(["a", "d"]);
    expect(skipped.map((error) => error.line)).toEqual([2, 3]);
    expect(skipped[1]?.message).toBe(`${path}:3: x: base_commit: Invalid input: expected string, received undefined; problem_statement: Invalid input: expected string, received undefined; patch: Invalid input: expected string, received undefined`);
  });

  it("names the file when it cannot be opened", async () => {
    await expect(readJsonl(join(dir, "missing.jsonl"))).rejects.toThrow(/cannot read JSONL file .*missing\.jsonl: ENOENT/);
  });
});

describe("readJsonl", () => {
  it("returns records and skipped lines together", async () => {
    const path = file("read.jsonl", `${good("a")}\n[1,\n${good("b")}`);
    const result = await readJsonl(path, { schema: InstanceSchema, onBadLine: "skip" });
    expect(result.records.map((record) => record.value.instance_id)).toEqual(["a", "b"]);
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]?.line).toBe(2);
  });

  it("reads untyped JSON without a schema", async () => {
    const path = file("plain.jsonl", `{"x": 1}\n{"x": 2}\n`);
    const result = await readJsonl(path);
    expect(result.records.map((record) => record.value)).toEqual([{ x: 1 }, { x: 2 }]);
  });
});
