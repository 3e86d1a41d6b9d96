import { describe, expect, it } from "vitest";
import { markTouch, spanCoverage } from "../src/gold-overlay.js";

const gold = {
  files: ["pkg/a.py", "pkg/b.py"],
  spans: [
    { path: "pkg/a.py", startLine: 50, endLine: 52 },
    { path: "pkg/a.py", startLine: 200, endLine: 200 },
  ],
};

describe("the gold overlay", () => {
  it("a touch is hit when it showed a gold line, near within 20 lines or with no lines in a gold file, miss otherwise", () => {
    const view = (path: string, start: number, end: number) => ({
      path,
      lines: [{ start, end }],
      kind: "view" as const,
    });
    expect(markTouch(view("pkg/a.py", 1, 50), gold)).toBe("hit");
    expect(markTouch(view("pkg/a.py", 52, 52), gold)).toBe("hit");
    expect(markTouch(view("pkg/a.py", 53, 60), gold)).toBe("near");
    expect(markTouch(view("pkg/a.py", 30, 30), gold)).toBe("near");
    expect(markTouch(view("pkg/a.py", 29, 29), gold)).toBe("miss");
    expect(markTouch(view("pkg/a.py", 100, 120), gold)).toBe("miss");
    expect(markTouch(view("pkg/a.py", 100, 120), gold, { nearLines: 80 })).toBe("near");
    expect(markTouch(view("pkg/c.py", 50, 52), gold)).toBe("miss");
    // A gold file with no span (a binary or deleted file): any look is near.
    expect(markTouch(view("pkg/b.py", 1, 10), gold)).toBe("near");
    expect(markTouch({ path: "pkg/a.py", lines: [], kind: "list" }, gold)).toBe("near");
    // Several ranges (search hits): the best one counts.
    expect(
      markTouch(
        {
          path: "pkg/a.py",
          lines: [
            { start: 5, end: 5 },
            { start: 200, end: 200 },
          ],
          kind: "search",
        },
        gold,
      ),
    ).toBe("hit");
  });

  it("each gold span with its best mark and the steps that hit or came near it", () => {
    const coverage = spanCoverage(gold.spans, [
      { step: 0, touch: { path: "pkg/a.py", lines: [{ start: 40, end: 45 }], kind: "view" } },
      { step: 2, touch: { path: "pkg/a.py", lines: [{ start: 51, end: 51 }], kind: "search" } },
      { step: 3, touch: { path: "pkg/a.py", lines: [{ start: 1, end: 60 }], kind: "view" } },
      { step: 4, touch: { path: "pkg/c.py", lines: [{ start: 200, end: 200 }], kind: "view" } },
    ]);
    expect(coverage).toEqual([
      { path: "pkg/a.py", startLine: 50, endLine: 52, mark: "hit", hitSteps: [2, 3], nearSteps: [0] },
      { path: "pkg/a.py", startLine: 200, endLine: 200, mark: "miss", hitSteps: [], nearSteps: [] },
    ]);
  });
});
