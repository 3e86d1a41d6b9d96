import { describe, expect, it } from "vitest";
import {
  budgetNote,
  cutOutput,
  FGL_SINGLE_AGENT,
  FGL_TWO_AGENTS,
  fixerToolDefinitions,
  isCounted,
  ReadWindowError,
  readWindow,
  replaceExact,
} from "../src/index.js";

const CAPS = { maxLines: 150, maxChars: 10_000 };
const numbered = (count: number, width = 9) =>
  Array.from({ length: count }, (_, index) => `${String(index + 1).padStart(width, "0")}\n`).join("");

describe("read_file's window", () => {
  it("whole lines within 150 lines, the end line it really returns, the file's length", () => {
    const window = readWindow(numbered(400), { startLine: 101 }, CAPS);
    expect(window).toMatchObject({ startLine: 101, endLine: 250, totalLines: 400, cut: "lines" });
    expect(window.text.split("\n")[0]).toBe("000000101");
    expect(window.text.endsWith("000000250\n")).toBe(true);
  });

  it("stops at the last whole line under 10,000 characters and says the character cap cut (FGL's harness cut mid-line)", () => {
    const wide = Array.from({ length: 120 }, (_, i) => `${String(i + 1).padStart(99, "0")}\n`).join("");
    const window = readWindow(wide, {}, CAPS);
    // 100 characters per line: 100 lines fit, the 101st would pass 10,000.
    expect(window).toMatchObject({ startLine: 1, endLine: 100, cut: "chars" });
    expect(window.text.length).toBe(10_000);
    expect(window.text.endsWith("\n")).toBe(true);
  });

  it("a first line longer than the cap is cut inside, and the window says so", () => {
    const window = readWindow(`${"x".repeat(25_000)}\nshort\n`, {}, CAPS);
    expect(window).toMatchObject({ startLine: 1, endLine: 1, totalLines: 2, cut: "line" });
    expect(window.text.length).toBe(10_000);
  });

  it("an explicit range inside the caps, a last line without newline, an empty file", () => {
    expect(readWindow("a\nb\nc", { startLine: 2, endLine: 3 }, CAPS)).toEqual({
      text: "b\nc",
      startLine: 2,
      endLine: 3,
      totalLines: 3,
      cut: "none",
    });
    expect(readWindow("a\nb\n", { endLine: 99 }, CAPS)).toMatchObject({ endLine: 2, cut: "none" });
    expect(readWindow("", {}, CAPS)).toMatchObject({ text: "", totalLines: 0, endLine: 0 });
  });

  it("past the end, reversed or zero: an error that says why", () => {
    expect(() => readWindow("a\nb\n", { startLine: 5 }, CAPS)).toThrow(
      new ReadWindowError("start_line 5 is past the end: the file has 2 lines"),
    );
    expect(() => readWindow("a\nb\n", { startLine: 2, endLine: 1 }, CAPS)).toThrow(/end_line \(1\)/);
    expect(() => readWindow("a\n", { startLine: 0 }, CAPS)).toThrow(/start_line must be 1 or more/);
  });
});

describe("edit_file's exact replacement", () => {
  const source = "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x + 1\n";

  it("replaces the one occurrence and says on which line it began", () => {
    const edit = replaceExact(source, "def g(x):\n    return x + 1", "def g(x):\n    return x - 1");
    expect(edit).toEqual({
      ok: true,
      line: 5,
      content: "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x - 1\n",
    });
  });

  it("refuses an ambiguous old text, naming the lines of every occurrence", () => {
    expect(replaceExact(source, "    return x + 1", "    return x")).toEqual({
      ok: false,
      reason: "ambiguous",
      lines: [2, 6],
      message: "old_text occurs 2 times (at lines 2, 6): include enough surrounding lines to make it unique",
    });
  });

  it("refuses an absent old text (no whitespace folding), an empty one, and a no-op", () => {
    expect(replaceExact(source, "def f(x):\n  return x + 1", "y")).toMatchObject({ ok: false, reason: "absent" });
    expect(replaceExact(source, "", "y")).toMatchObject({ ok: false, reason: "empty" });
    expect(replaceExact(source, "def f", "def f")).toMatchObject({ ok: false, reason: "unchanged" });
  });
});

describe("run_command's output cap and the call budget", () => {
  it("keeps the first characters of a stream and says how many were cut", () => {
    expect(cutOutput("short", 5_000)).toEqual({ text: "short", omitted: 0, droppedBytes: 0 });
    const cut = cutOutput("y".repeat(7_500), 5_000);
    expect(cut.omitted).toBe(2_500);
    expect(cut.text).toBe(`${"y".repeat(5_000)}\n[… 2500 more characters cut]`);
  });

  it("says how many bytes the sandbox never kept, with or without a cut of its own", () => {
    expect(cutOutput("y".repeat(7_500), 5_000, 1_499_992_500).text).toBe(
      `${"y".repeat(5_000)}\n[… 2500 more characters cut; 1,499,992,500 more bytes not kept]`,
    );
    expect(cutOutput("short", 5_000, 10)).toEqual({
      text: "short\n[… 10 more bytes not kept]",
      omitted: 0,
      droppedBytes: 10,
    });
  });

  it("counts run_command, read_file, edit_file, write_file; not get_status, submit_patch or an unknown tool", () => {
    expect(["run_command", "read_file", "edit_file", "write_file"].map(isCounted)).toEqual([true, true, true, true]);
    expect(["get_status", "submit_patch", "localizer", "bash"].map(isCounted)).toEqual([false, false, false, false]);
  });

  it("warns when 10 or fewer calls remain, for budgets of at least 20 (FGL: 36 single, 44 two agents)", () => {
    expect(FGL_SINGLE_AGENT.callBudget).toBe(36);
    expect(FGL_TWO_AGENTS.callBudget).toBe(44);
    expect(budgetNote(11, FGL_SINGLE_AGENT)).toBeUndefined();
    expect(budgetNote(10, FGL_SINGLE_AGENT)).toBe(
      "[budget: 10 tool calls left of 36; submit_patch when the fix is in]",
    );
    expect(budgetNote(1, FGL_SINGLE_AGENT)).toMatch(/1 tool call left of 36/);
    expect(budgetNote(0, FGL_SINGLE_AGENT)).toMatch(/no tool calls left/);
    expect(budgetNote(3, { ...FGL_SINGLE_AGENT, callBudget: 12 })).toBeUndefined();
  });

  it("offers six tools whose JSON Schemas carry no unsafe maximum", () => {
    const tools = fixerToolDefinitions();
    expect(tools.map((tool) => tool.name)).toEqual([
      "run_command",
      "read_file",
      "edit_file",
      "write_file",
      "get_status",
      "submit_patch",
    ]);
    expect(JSON.stringify(tools)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(tools[1]!.parameters).toMatchObject({ required: ["path"] });
    expect(fixerToolDefinitions({ twoAgents: true }).map((tool) => tool.name)).toEqual([
      ...tools.map((tool) => tool.name),
      "localizer",
    ]);
  });
});
