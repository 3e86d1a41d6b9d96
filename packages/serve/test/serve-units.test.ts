import { describe, expect, it } from "vitest";
import {
  dropNullOptionals,
  parseToolAnswer,
  QueueFullError,
  SequencePool,
  toGrammarSchema,
  tokenPieces,
  toolAnswerSchema,
} from "../src/index.js";

describe("toGrammarSchema: a tool's JSON Schema for node-llama-cpp's JSON grammar", () => {
  it("keeps types, enums and descriptions; makes optional properties nullable (the grammar requires every key)", () => {
    const schema = {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, maxLength: 64, description: "file" },
        depth: { type: "integer", minimum: 1 },
        direction: { type: "string", enum: ["both", "imports"] },
        include: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 },
      },
      required: ["path"],
      additionalProperties: false,
    };
    expect(toGrammarSchema(schema)).toEqual({
      type: "object",
      additionalProperties: false,
      properties: {
        // Length and item bounds kept (a constrained call's strings are bounded by its budget).
        path: { type: "string", minLength: 1, maxLength: 64, description: "file" },
        depth: { oneOf: [{ type: "integer" }, { type: "null" }] },
        direction: { oneOf: [{ enum: ["both", "imports"] }, { type: "null" }] },
        include: {
          oneOf: [{ type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 }, { type: "null" }],
        },
      },
    });
    expect(() => toGrammarSchema({ type: "string", maxLength: -1 })).toThrow(
      "parameters.maxLength: must be a non-negative integer, not -1",
    );
    expect(() => toGrammarSchema({ type: "object", properties: { x: { type: "date" } } })).toThrow(
      'parameters.properties.x: JSON Schema type "date" is not supported',
    );
  });

  it("an answer is a call to one of the tools or, with auto, text; nulls of optional arguments are dropped", () => {
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "view_file",
          parameters: {
            type: "object",
            properties: { path: { type: "string" }, start: { type: "integer" } },
            required: ["path"],
          },
        },
      },
    ];
    const auto = toolAnswerSchema(tools, "auto") as { oneOf: unknown[] };
    expect(auto.oneOf).toHaveLength(2);
    expect(toolAnswerSchema(tools, "required")).toMatchObject({
      type: "object",
      properties: { name: { const: "view_file" } },
    });
    expect(parseToolAnswer('{"name": "view_file", "arguments": {"path": "a.py", "start": null}}', tools)).toEqual({
      kind: "call",
      name: "view_file",
      arguments: { path: "a.py" },
    });
    expect(parseToolAnswer('{"content": "done"}', tools)).toEqual({ kind: "text", content: "done" });
    expect(parseToolAnswer('{"name": "view_file", "argu', tools)).toEqual({
      kind: "unparsed",
      text: '{"name": "view_file", "argu',
    });
    expect(dropNullOptionals({ a: null, b: 1 }, { properties: { a: {}, b: {} }, required: ["a"] })).toEqual({
      a: null,
      b: 1,
    });
  });
});

describe("SequencePool: N sequences, a bounded FIFO of waiters", () => {
  it("grants in order, refuses beyond the bound, and lets an aborted waiter leave", async () => {
    const pool = new SequencePool(["s1"], 2);
    const first = await pool.acquire();
    const order: string[] = [];
    const second = pool.acquire().then((lease) => (order.push("second"), lease));
    const controller = new AbortController();
    const third = pool.acquire({ signal: controller.signal });
    await expect(pool.acquire()).rejects.toBeInstanceOf(QueueFullError);
    expect([pool.running, pool.waiting]).toEqual([1, 2]);
    controller.abort();
    await expect(third).rejects.toMatchObject({ name: "AbortError" });
    expect(pool.waiting).toBe(1);
    first.release();
    first.release(); // twice is harmless
    const lease = await second;
    expect(order).toEqual(["second"]);
    expect([pool.running, pool.waiting]).toEqual([1, 0]);
    lease.release();
    expect(pool.running).toBe(0);
  });

  it("choose picks among the free items", async () => {
    const pool = new SequencePool(["a", "b", "c"], 0);
    const lease = await pool.acquire({ choose: (free) => free.indexOf("c") });
    expect(lease.item).toBe("c");
  });
});

describe("tokenPieces: one piece per token, concatenating to the text exactly", () => {
  // A byte-level tokenizer: each token is a run of UTF-8 bytes; a prefix that ends inside a
  // character decodes to U+FFFD, as real detokenizers do.
  const vocabulary = [..."ab c"]
    .map((char) => Buffer.from(char))
    .concat([
      Buffer.from("€").subarray(0, 2),
      Buffer.from("€").subarray(2),
      Buffer.from("😀").subarray(0, 1),
      Buffer.from("😀").subarray(1),
    ]);
  const detokenize = (tokens: readonly number[]) =>
    new TextDecoder().decode(Buffer.concat(tokens.map((token) => vocabulary[token]!)));
  it("a character split across tokens goes whole to the token that completes it", () => {
    const tokens = [0, 4, 5, 2, 6, 7, 1];
    const result = tokenPieces(tokens, detokenize);
    expect(result.text).toBe("a€ 😀b");
    expect(result.pieces).toEqual(["a", "", "€", " ", "", "😀", "b"]);
    expect(result.offsets).toEqual([0, 1, 1, 2, 3, 3, 5]);
    expect(result.pieces.join("")).toBe(result.text);
  });
  it("long inputs (windows restart every 32 tokens) still reassemble exactly", () => {
    const tokens = Array.from({ length: 500 }, (_, i) =>
      i % 7 === 3 ? [4, 5] : i % 11 === 0 ? [6, 7] : [i % 4],
    ).flat();
    const result = tokenPieces(tokens, detokenize);
    expect(result.pieces).toHaveLength(tokens.length);
    expect(result.pieces.join("")).toBe(detokenize(tokens));
    result.offsets.forEach((offset, index) => expect(result.text.startsWith(result.pieces[index]!, offset)).toBe(true));
  });
});
