import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forEachLineSync, LINE_CHUNK_BYTES } from "../src/read/read-lines.js";
import { TopLevelSplitter } from "../src/read/top-level-splitter.js";

const scratch = mkdtempSync(join(tmpdir(), "loclab-lines-"));

describe("forEachLineSync", () => {
  it("splits lines exactly as Node's readline does (\\n, \\r\\n, lone \\r, multibyte text, chunk boundaries)", async () => {
    const piece = fc.oneof(
      fc.constantFrom("\n", "\r\n", "\r", "é", "日本", "😀", '{"a":1}', " "),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 0, max: 3 }), async (pieces, padding) => {
        // Padding moves the text across the chunk boundary of the reader (the first chunk all
        // ASCII, the next with whatever the pieces hold).
        const text = "x".repeat(padding === 0 ? 0 : LINE_CHUNK_BYTES - padding) + pieces.join("");
        const file = join(scratch, "lines.txt");
        writeFileSync(file, text);
        const ours: [string, number][] = [];
        forEachLineSync(file, (line, number) => ours.push([line, number]));
        const theirs: [string, number][] = [];
        const reader = createInterface({
          input: createReadStream(file, { encoding: "utf8" }),
          crlfDelay: Number.POSITIVE_INFINITY,
        });
        for await (const line of reader) theirs.push([line, theirs.length + 1]);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 60 },
    );
  });
});

describe("TopLevelSplitter", () => {
  it("hands over the members and streamed elements JSON.parse finds, in any chunking", () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("messages", "info", "other", "trajectory", 'we"ird\\\\'), json, { maxKeys: 5 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
        (object, cuts) => {
          const document = Buffer.from(JSON.stringify(object, null, (cuts[0] ?? 0) % 2 === 0 ? 0 : 2), "utf8");
          const streamed = new Set(["messages", "trajectory"]);
          const members = new Set(["info", 'we"ird\\\\']);
          const seen: [string, unknown][] = [];
          const splitter = new TopLevelSplitter(streamed, members, {
            element: (container, bytes) => seen.push([`${container}[]`, JSON.parse(bytes.toString("utf8"))]),
            member: (key, bytes) => {
              const value = JSON.parse(bytes.toString("utf8"));
              seen.push([key, value]);
            },
          });
          let at = 0;
          let i = 0;
          while (at < document.length) {
            const size = cuts[i++ % cuts.length] as number;
            splitter.write(document.subarray(at, at + size));
            at += size;
          }
          splitter.end();
          const expected: [string, unknown][] = [];
          for (const [key, value] of Object.entries(object)) {
            if (streamed.has(key) && Array.isArray(value)) for (const item of value) expected.push([`${key}[]`, item]);
            else if (streamed.has(key) || members.has(key)) expected.push([key, value]);
          }
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("refuses a broken top level and an unfinished document, with the byte", () => {
    const run = (text: string) => {
      const splitter = new TopLevelSplitter(new Set(["messages"]), new Set(), { element: () => {}, member: () => {} });
      splitter.write(Buffer.from(text));
      splitter.end();
    };
    expect(() => run('{"messages": [1, 2')).toThrow(/unexpected end of the document at byte \d+ \(in "messages"\)/);
    expect(() => run('{"a" 1}')).toThrow(`expected ':' after "a", found "1" at byte 5`);
    expect(() => run('{"a": 1} x')).toThrow("nothing may follow the top-level object");
    expect(() => run("[1]")).toThrow("the top level is an array, not an object");
    expect(() => run('{"messages": [1,, 2]}')).toThrow(/expected a value for "messages"/);
  });
});
