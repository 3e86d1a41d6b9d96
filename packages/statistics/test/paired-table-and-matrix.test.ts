import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type BinaryOutcome,
  ResolvedMatrixError,
  exactMcNemar,
  pairedTable,
  parseResolvedMatrix,
} from "../src/index.js";

describe("pairedTable", () => {
  const a = new Map<string, BinaryOutcome>([
    ["r__r-1", 1],
    ["r__r-2", 1],
    ["r__r-3", 0],
    ["r__r-4", 0],
    ["r__r-5", true],
  ]);
  const b = new Map<string, BinaryOutcome>([
    ["r__r-5", false],
    ["r__r-4", 1],
    ["r__r-3", 0],
    ["r__r-2", 1],
    ["r__r-1", 0],
  ]);

  it("counts the four cells over the shared ids, in a's order", () => {
    expect(pairedTable({ a, b })).toEqual({
      n: 5,
      bothSolved: 1,
      aOnly: 2,
      bOnly: 1,
      neither: 1,
      ids: ["r__r-1", "r__r-2", "r__r-3", "r__r-4", "r__r-5"],
      dropped: { onlyInA: [], onlyInB: [] },
    });
  });

  it("throws on different id sets, with counts and examples; intersect: true reports the dropped ids", () => {
    const more = new Map<string, BinaryOutcome>([...a, ["x__x-1", 1], ["x__x-2", 0], ["x__x-3", 0], ["x__x-4", 1]]);
    const fewer = new Map<string, BinaryOutcome>([...b].filter(([id]) => id !== "r__r-5").concat([["y__y-9", 1]]));
    expect(() => pairedTable({ a: more, b: fewer })).toThrow(
      "pairedTable requires both sides to cover the same instances: 5 only in a (r__r-5, x__x-1, x__x-2, …), 1 only in b (y__y-9); pass intersect: true to compare the 4 shared ids",
    );
    const table = pairedTable({ a: more, b: fewer, intersect: true });
    expect(table).toMatchObject({ n: 4, bothSolved: 1, aOnly: 1, bOnly: 1, neither: 1 });
    expect(table.dropped).toEqual({ onlyInA: ["r__r-5", "x__x-1", "x__x-2", "x__x-3", "x__x-4"], onlyInB: ["y__y-9"] });
  });

  it("refuses outcomes other than true/false/1/0", () => {
    const bad = new Map<string, BinaryOutcome>([["r__r-1", 2 as unknown as BinaryOutcome]]);
    expect(() => pairedTable({ a: bad, b: new Map([["r__r-1", 0]]) })).toThrow(
      'pairedTable requires outcomes true/false or 1/0, got 2 for "r__r-1" in a',
    );
  });

  it("its cells add up to n and feed exactMcNemar; swapping sides swaps b and c", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.boolean()), { maxLength: 80 }), (pairs) => {
        const left = new Map(pairs.map(([x], i) => [`r__r-${i}`, x]));
        const right = new Map(pairs.map(([, y], i) => [`r__r-${i}`, y]));
        const table = pairedTable({ a: left, b: right });
        expect(table.bothSolved + table.aOnly + table.bOnly + table.neither).toBe(pairs.length);
        const swapped = pairedTable({ a: right, b: left });
        expect([swapped.aOnly, swapped.bOnly]).toEqual([table.bOnly, table.aOnly]);
        expect(exactMcNemar({ b: table.aOnly, c: table.bOnly }).p).toBe(
          exactMcNemar({ b: swapped.aOnly, c: swapped.bOnly }).p,
        );
      }),
    );
  });
});

describe("parseResolvedMatrix", () => {
  const text = 'instance_id,sys A (2024),"sys, B"\r\ndjango__django-11099,1,0\r\nsympy__sympy-20590,0,0\r\n';

  it("reads CRLF text, quoted and unquoted names, into one Uint8Array per system", () => {
    const matrix = parseResolvedMatrix(text, { source: "t.csv" });
    expect(matrix.instanceIds).toEqual(["django__django-11099", "sympy__sympy-20590"]);
    expect(matrix.systems).toEqual(["sys A (2024)", "sys, B"]);
    expect(matrix.outcomes.map((o) => Array.from(o))).toEqual([
      [1, 0],
      [0, 0],
    ]);
    expect(matrix.outcomes[0]).toBeInstanceOf(Uint8Array);
  });

  it("accepts LF, a byte-order mark, escaped quotes, no final newline and trailing blank lines", () => {
    const matrix = parseResolvedMatrix('\uFEFFinstance_id,"say ""hi"""\nx__x-1,1\n\n\n', { source: "t.csv" });
    expect(matrix.systems).toEqual(['say "hi"']);
    expect(parseResolvedMatrix("instance_id,s\nx__x-1,1", { source: "t.csv" }).instanceIds).toEqual(["x__x-1"]);
    expect(parseResolvedMatrix("instance_id,s\n", { source: "t.csv" })).toEqual({
      instanceIds: [],
      systems: ["s"],
      outcomes: [new Uint8Array(0)],
    });
  });

  const cases: [string, string, number, string | undefined, string][] = [
    ["a cell that is not 0/1", "instance_id,a,b\nx__x-1,1,0\nx__x-2,1,yes\n", 3, "b", 'expected 0 or 1, got "yes"'],
    ["a cell with spaces", "instance_id,a\nx__x-1, 1\n", 2, "a", 'expected 0 or 1, got " 1"'],
    ["an empty cell", "instance_id,a,b\nx__x-1,,1\n", 2, "a", 'expected 0 or 1, got ""'],
    [
      "a duplicate instance id",
      "instance_id,a\nx__x-1,1\nx__x-2,0\nx__x-1,0\n",
      4,
      "instance_id",
      'duplicate instance id "x__x-1" (first on line 2)',
    ],
    ["a short row", "instance_id,a,b\nx__x-1,1\n", 2, undefined, "expected 3 fields like the header, got 2"],
    ["a long row", "instance_id,a\nx__x-1,1,0\n", 2, undefined, "expected 2 fields like the header, got 3"],
    ["a blank line inside", "instance_id,a\n\nx__x-1,1\n", 2, undefined, "expected 2 fields like the header, got 1"],
    ["an empty header name", "instance_id,a,,b\nx__x-1,1,0,1\n", 1, "", "column 3 has an empty name"],
    ["a duplicate system", "instance_id,a,b,a\nx__x-1,1,0,1\n", 1, "a", "duplicate column name (columns 2 and 4)"],
    ["a wrong first column", "id,a\nx__x-1,1\n", 1, "id", 'the first column must be named "instance_id"'],
    ["no systems", "instance_id\nx__x-1\n", 1, undefined, "no system columns after instance_id"],
    ["an empty text", "", 1, undefined, "no header: the text is empty"],
    ["an empty instance id", "instance_id,a\n,1\n", 2, "instance_id", "empty instance id"],
    ["an unterminated quote", 'instance_id,a\n"x__x-1,1\n', 2, undefined, "a quoted field is never closed"],
    ["a stray quote", 'instance_id,a\nx__x"-1,1\n', 2, undefined, "a double quote inside an unquoted field"],
    ["text after a closing quote", 'instance_id,"a"b\n', 1, undefined, 'unexpected "b" after a closing quote'],
    ["a bare carriage return", "instance_id,a\rx__x-1,1\n", 1, undefined, "a carriage return that does not end a line"],
  ];

  it.each(cases)("throws on %s, naming source, line and column", (_, csv, line, column, problem) => {
    let caught: unknown;
    try {
      parseResolvedMatrix(csv, { source: "lite.csv" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ResolvedMatrixError);
    const error = caught as ResolvedMatrixError;
    expect({ source: error.source, line: error.line, column: error.column, problem: error.problem }).toEqual({
      source: "lite.csv",
      line,
      column,
      problem,
    });
    expect(error.message).toBe(
      `lite.csv: line ${line}${column === undefined ? "" : `, column ${JSON.stringify(column)}`}: ${problem}`,
    );
  });

  it("counts lines inside quoted fields when reporting a later row", () => {
    expect(() => parseResolvedMatrix('instance_id,"two\nlines"\nx__x-1,2\n', { source: "q.csv" })).toThrow(
      'q.csv: line 3, column "two\\nlines": expected 0 or 1, got "2"',
    );
  });
});

// The real resolved matrices in the shared data folder ($LOCLAB_DATA_DIR, or shared/data found
// above this package), read in place: never copied into the repository.
function sharedData(): string | undefined {
  const fromEnv = process.env.LOCLAB_DATA_DIR;
  if (fromEnv) return resolve(fromEnv);
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "data");
    if (existsSync(join(candidate, "resolved", "lite.csv"))) return candidate;
  }
  return undefined;
}
const dataDir = sharedData();

describe.skipIf(!dataDir)("parseResolvedMatrix on the shared resolved matrices", () => {
  it.each([
    ["lite.csv", 300, 42],
    ["verified.csv", 500, 36],
    ["verified-bash-only.csv", 500, 28],
  ] as const)("%s: %i instances × %i systems", (file, instances, systems) => {
    const matrix = parseResolvedMatrix(readFileSync(join(dataDir as string, "resolved", file), "utf8"), {
      source: file,
    });
    expect(matrix.instanceIds).toHaveLength(instances);
    expect(matrix.systems).toHaveLength(systems);
    expect(matrix.outcomes.every((o) => o.length === instances)).toBe(true);
  });

  it("lite.csv: the first row and one known system total", () => {
    const matrix = parseResolvedMatrix(readFileSync(join(dataDir as string, "resolved", "lite.csv"), "utf8"), {
      source: "lite.csv",
    });
    expect(matrix.instanceIds[0]).toBe("astropy__astropy-12907");
    expect(matrix.systems[0]).toBe("20231010_rag_claude2");
    const total = matrix.outcomes.reduce((sum, o) => sum + o.reduce((s, x) => s + x, 0), 0);
    expect(total).toBe(3110); // the 1 cells of the file
  });
});
