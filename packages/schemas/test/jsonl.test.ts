import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InstanceSchema, JsonlLineError, readJsonl, streamJsonl } from "../src/index.js";
import { z } from "zod";

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
    for await (const { line, value } of streamJsonl(path, { schema: InstanceSchema }))
      seen.push([line, value.instance_id]);
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
    for await (const { value } of streamJsonl(path, { schema: InstanceSchema, onBadLine: "skip", skipped }))
      ids.push(value.instance_id);
    expect(ids).toEqual(["a", "d"]);
    expect(skipped.map((error) => error.line)).toEqual([2, 3]);
    expect(skipped[1]?.message).toBe(
      `${path}:3: x: base_commit: Invalid input: expected string, received undefined; problem_statement: Invalid input: expected string, received undefined; patch: Invalid input: expected string, received undefined`,
    );
  });

  it("names the file when it cannot be opened", async () => {
    await expect(readJsonl(join(dir, "missing.jsonl"))).rejects.toThrow(
      /cannot read JSONL file .*missing\.jsonl: ENOENT/,
    );
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

describe("streamJsonl on damaged files", () => {
  const write = (name: string, content: string | Buffer) => {
    const dir = mkdtempSync(join(tmpdir(), "loclab-jsonl-"));
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it("a torn last line (no line break, not JSON) is reported with file and line and passed over", async () => {
    const path = write("torn.jsonl", '{"a":1}\n{"a":2}\n{"a":');
    const torn: string[] = [];
    const records = [];
    for await (const record of streamJsonl(path, { onTornLine: (error) => torn.push(error.message) }))
      records.push(record.value);
    expect(records).toEqual([{ a: 1 }, { a: 2 }]);
    expect(torn).toEqual([
      `${path}:3: a torn last line (no line break, 5 bytes; a write cut off?): passed over: invalid JSON: Unexpected end of JSON input`,
    ]);
  });

  it("a bad line that is not the last one still stops the read; a complete last line without a break is a record", async () => {
    await expect(readJsonl(write("bad.jsonl", '{"a":\n{"a":2}\n'))).rejects.toThrow(/bad\.jsonl:1: invalid JSON/);
    expect((await readJsonl(write("ok.jsonl", '{"a":1}\n{"a":2}'))).records.map((record) => record.value)).toEqual([
      { a: 1 },
      { a: 2 },
    ]);
  });

  it("invalid UTF-8 is a bad line naming the byte, never replaced silently; a literal U+FFFD is fine", async () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"ok"}\n{"a":"x'), Buffer.from([0xff]), Buffer.from('y"}\n')]);
    await expect(readJsonl(write("latin.jsonl", bytes))).rejects.toThrow(
      /latin\.jsonl:2: not valid UTF-8 \(at byte 7 of the line\)/,
    );
    expect((await readJsonl(write("fffd.jsonl", '{"a":"\uFFFD"}\n'))).records[0]?.value).toEqual({ a: "\uFFFD" });
  });

  it("a value nested 200,000 deep is a bad line naming file and line, not a stack overflow", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    // A schema that recurses with the value, as a recursive tree schema would.
    const Nested: z.ZodType = z.lazy(() => z.union([z.number(), z.array(Nested)]));
    const error = await readJsonl(write("deep.jsonl", `${deep}\n{"a":1}\n`), { schema: Nested }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(JsonlLineError);
    expect((error as Error).message).toMatch(
      /deep\.jsonl:1: cannot be checked: Maximum call stack size exceeded \(nested too deeply\?\)/,
    );
  });
});
