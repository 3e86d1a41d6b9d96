import { describe, expect, it } from "vitest";
import {
  addedLineRanges,
  addedLineTokens,
  buildCandidates,
  capLocations,
  extraReads,
  type FglLocation,
  findSnippet,
  fixerPrompt,
  locationSetKey,
  mergeLocations,
} from "../src/index.js";

const edit = (path: string, startLine: number, endLine: number): FglLocation => ({
  path,
  startLine,
  endLine,
  role: "edit",
});
const read = (path: string, startLine: number, endLine: number): FglLocation => ({
  path,
  startLine,
  endLine,
  role: "read",
});

describe("locations and candidates", () => {
  it("merging joins overlapping and touching ranges of a file; an edit wins the role", () => {
    expect(
      mergeLocations([
        read("a.py", 1, 10),
        edit("a.py", 8, 12),
        read("a.py", 13, 14),
        read("a.py", 20, 30),
        read("b.py", 1, 2),
      ]),
    ).toEqual([{ path: "a.py", startLine: 1, endLine: 14, role: "edit" }, read("a.py", 20, 30), read("b.py", 1, 2)]);
    expect(locationSetKey([read("a.py", 1, 5), read("a.py", 6, 9)])).toBe(locationSetKey([edit("a.py", 1, 9)]));
  });

  it("capping keeps edits first, then reads in order, and says how many it dropped", () => {
    const many = Array.from({ length: 10 }, (_, i) => read(`f${i}.py`, 1, 2));
    const capped = capLocations([...many, edit("z.py", 5, 6)], 8);
    expect(capped.locations[0]).toEqual(edit("z.py", 5, 6));
    expect(capped.locations).toHaveLength(8);
    expect(capped.dropped).toBe(3);
  });

  it("teacher, variants and samples, de-duplicated on path × line ranges with the teacher kept", () => {
    const candidates = buildCandidates({
      task: "t-1",
      teacher: { edits: [edit("a.py", 10, 16)], reads: [read("a.py", 1, 5), read("b.py", 1, 40)], source: "traj" },
      samples: [
        { seed: 1, locations: [edit("a.py", 10, 16), read("a.py", 1, 5), read("b.py", 1, 40)], source: "run" },
        { seed: 2, locations: [edit("c.py", 3, 4)], source: "run" },
      ],
    });
    // Teacher items in order: the edit a.py 10-16, then the reads. Without the edit it is the viewed code only, so
    // teacher-minus-1 folds into viewed-only; sample 1 is the teacher's own set.
    expect(candidates.map((c) => c.id)).toEqual([
      "teacher",
      "edited-only",
      "viewed-only",
      "teacher-minus-2",
      "teacher-minus-3",
      "sample-seed-2",
    ]);
    expect(candidates[0]).toMatchObject({ teacher: true, provenance: { duplicates: ["sample-seed-1"] } });
    expect(candidates[2]).toMatchObject({ provenance: { duplicates: ["teacher-minus-1"] } });
    expect(candidates[3]!.locations).toEqual([edit("a.py", 10, 16), read("b.py", 1, 40)]);
    expect(candidates.filter((c) => c.teacher)).toHaveLength(1);
    expect(candidates.every((c) => c.task === "t-1" && c.locations.length <= 8)).toBe(true);
    // No teacher: samples only; an empty sample is left out.
    expect(buildCandidates({ task: "t", samples: [{ seed: 3, locations: [], source: "r" }] })).toEqual([]);
  });

  it("findSnippet finds a snippet's lines, allowing the lines AutoCodeRover leaves out of a class", () => {
    const file = [
      "import x",
      "class C:",
      "    a = 1",
      "    def f(self):",
      "        return 1",
      "    def g(self):",
      "        pass",
    ];
    expect(findSnippet(file, "class C:\n    def f(self):\n    def g(self):\n")).toEqual({ startLine: 2, endLine: 6 });
    expect(findSnippet(file, "class D:")).toBeUndefined();
  });
});

describe("the fixer's prompt, y+ and |a_k|", () => {
  const patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n x = 1\n-y = 2\n+y = 3\n z = 4\n";
  it("y+ ranges cover the + lines (not the +++ header) from the marker up to the newline", () => {
    const ranges = addedLineRanges(patch);
    expect(ranges.map(([a, b]) => patch.slice(a, b))).toEqual(["+y = 3"]);
    expect(addedLineRanges("@@ -1 +1,2 @@\n+a\n+b").map(([a, b]) => [a, b])).toEqual([
      [14, 16],
      [17, 19],
    ]);
    const prompt = fixerPrompt({ repo: "o/r", issue: "y is wrong", context: "", patch });
    expect(prompt.added.map(([a, b]) => prompt.text.slice(a, b))).toEqual(["+y = 3"]);
    expect(prompt.text.slice(prompt.patchStart)).toBe(patch);
  });

  it("a token counts for y+ when it starts inside an added line; straddles are counted both ways", () => {
    // Text "ab+cd\nef": added range [2, 6) = "+cd\n". Tokens: "ab" [0,2) "+c" [2,4) "d" [4,5) "\ne" [5,7) "f" [7,8).
    const result = addedLineTokens([0, 2, 4, 5, 7], [[2, 6]], { promptEnd: 8 });
    expect(result).toEqual({ indices: [1, 2, 3], lines: [0, 0, 0], startsBefore: 0, runsPast: 1 });
    // A token "b+" [1,3) starting before the line: the line's first token starts late.
    expect(addedLineTokens([0, 1, 3, 6], [[2, 6]], { promptEnd: 8 })).toEqual({
      indices: [2],
      lines: [0],
      startsBefore: 1,
      runsPast: 0,
    });
    // An echoed BOS text shifts every offset; generated tokens after the prompt are not y+.
    expect(addedLineTokens([0, 3, 5, 9, 11], [[2, 6]], { shift: 3, promptEnd: 8 }).indices).toEqual([2]);
    // Two added lines: each selected token names the line it starts in.
    expect(
      addedLineTokens(
        [0, 2, 4, 6, 8, 10],
        [
          [2, 4],
          [6, 10],
        ],
        { promptEnd: 12 },
      ).lines,
    ).toEqual([0, 1, 1]);
  });

  it("|a_k| counts the hunks whose changed lines ctx(z) does not show", () => {
    expect(extraReads(patch, [])).toEqual({ needed: 1, hunks: 1 });
    expect(extraReads(patch, [read("a.py", 1, 3)])).toEqual({ needed: 0, hunks: 1 });
    expect(extraReads(patch, [read("a.py", 3, 9)])).toEqual({ needed: 1, hunks: 1 });
  });
});
