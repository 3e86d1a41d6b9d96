import { describe, expect, it } from "vitest";
import { parseRelatedLocs } from "../src/index.js";

describe("parseRelatedLocs", () => {
  it("reads function and class lines in order, line spans, and counts other kinds", () => {
    const parsed = parseRelatedLocs({
      "a.py": ["class: A\nfunction: A.f\nline: 3\nline: 10-12", "variable: X\n\n  function: g  "],
      "b.py": [""],
      "c.py": ["function:\nsome prose\nfunction: h"],
    });
    expect(parsed.symbols).toEqual([
      { path: "a.py", name: "A", kind: "class" },
      { path: "a.py", name: "A.f", kind: "function" },
      { path: "a.py", name: "g", kind: "function" },
      { path: "c.py", name: "h", kind: "function" },
    ]);
    expect(parsed.locations).toEqual([
      { path: "a.py", startLine: 3, endLine: 3, role: "edit" },
      { path: "a.py", startLine: 10, endLine: 12, role: "edit" },
    ]);
    expect(parsed.ignored).toEqual({ variable: 1, "<no name>": 1, "<no kind>": 1 });
    expect(parsed.problems).toEqual([]);
  });

  it("ends a name at a further ': ', as CoSIL's split(': ')[1] does", () => {
    expect(parseRelatedLocs({ "x.py": ["class: Axes.function: bar"] }).symbols).toEqual([
      { path: "x.py", name: "Axes.function", kind: "class" },
    ]);
  });

  it("reads the Agentless list form, aligned with found_files", () => {
    const parsed = parseRelatedLocs([["function: f"], [""], ["class: C\nline: 7"]], {
      files: ["a.py", "b.py", "c.py"],
    });
    expect(parsed.symbols.map(({ path, name }) => `${path}:${name}`)).toEqual(["a.py:f", "c.py:C"]);
    expect(parsed.locations).toEqual([{ path: "c.py", startLine: 7, endLine: 7, role: "edit" }]);
  });

  it("reports a list longer than found_files", () => {
    expect(parseRelatedLocs([["function: f"], ["function: g"]], { files: ["a.py"] }).problems).toEqual([
      "found_related_locs has 2 entries but found_files only 1; the list form must align with found_files",
    ]);
  });

  it("reports malformed spans", () => {
    const parsed = parseRelatedLocs({ "a.py": ["line: 0\nline: 9-3\nline: -2\nline: ten"] });
    expect(parsed.locations).toEqual([]);
    expect(parsed.problems).toEqual([
      'a.py: "line: 0": line numbers start at 1',
      'a.py: "line: 9-3": start line 9 is after end line 3',
      'a.py: "line: -2" is not a line number or a range N-M',
      'a.py: "line: ten" is not a line number or a range N-M',
    ]);
  });
});
