import { describe, expect, it } from "vitest";
import { type ViewedFile, ToolError, matchPath, openWorkspace, renderViewFile, viewFile } from "../src/index.js";
import { LONG_FILE, writeSampleRepo } from "./sample-repo.js";

const root = writeSampleRepo();
const open = (limits = {}) => openWorkspace({ root, limits });
const shown = async (input: Parameters<typeof viewFile>[1], limits = {}) => {
  const result = await viewFile(await open(limits), input);
  if (result.status !== "shown") throw new Error(`expected a shown file, got ${result.status}`);
  return result as ViewedFile;
};

describe("fuzzy path matching (docs/definitions.md §1: exact, case-insensitive, unique suffix, closest basename)", () => {
  const files = [
    "README.md",
    "src/app/core.py",
    "src/app/Views.py",
    "src/app/utils/text.py",
    "src/app/utils/Text.py",
    "lib/text.py",
    "docs/readme.MD",
    "docs/README.md",
    "a/query.py",
    "a/models/query.py",
    "a/models/sql/query.py",
  ];

  it("1. exact: the path itself, even when other rules would match too", () => {
    expect(matchPath(files, "README.md")).toEqual({
      status: "found",
      path: "README.md",
      rule: "exact",
      alternatives: [],
    });
  });

  it("2. case-insensitive: one file equal ignoring case is chosen; several are listed", () => {
    expect(matchPath(files, "src/app/views.py")).toMatchObject({
      status: "found",
      path: "src/app/Views.py",
      rule: "case-insensitive",
    });
    expect(matchPath(files, "docs/readme.md")).toEqual({
      status: "ambiguous",
      rule: "case-insensitive",
      candidates: ["docs/README.md", "docs/readme.MD"],
      total: 2,
    });
  });

  it("3. unique suffix: on a segment boundary; case-sensitive matches first, then ignoring case", () => {
    expect(matchPath(files, "app/core.py")).toMatchObject({ status: "found", path: "src/app/core.py", rule: "suffix" });
    // Not a segment boundary: no suffix match; the basename rule then finds the same file.
    expect(matchPath(files, "pp/core.py")).toMatchObject({
      status: "found",
      path: "src/app/core.py",
      rule: "basename",
    });
    expect(matchPath(files, "utils/text.py")).toMatchObject({
      status: "found",
      path: "src/app/utils/text.py",
      rule: "suffix",
    });
    expect(matchPath(files, "utils/TEXT.py")).toEqual({
      status: "ambiguous",
      rule: "suffix",
      candidates: ["src/app/utils/Text.py", "src/app/utils/text.py"],
      total: 2,
    });
    expect(matchPath(files, "text.py")).toEqual({
      status: "ambiguous",
      rule: "suffix",
      candidates: ["lib/text.py", "src/app/utils/text.py"],
      total: 2,
    });
    expect(matchPath(files, "app/views.py")).toMatchObject({
      status: "found",
      path: "src/app/Views.py",
      rule: "suffix",
    });
  });

  it("4. closest basename: fewest edits, ties broken by agreeing trailing folders, else ambiguous", () => {
    expect(matchPath(files, "src/app/cor.py")).toMatchObject({
      status: "found",
      path: "src/app/core.py",
      rule: "basename",
    });
    expect(matchPath(files, "models/querys.py")).toMatchObject({
      status: "found",
      path: "a/models/query.py",
      rule: "basename",
    });
    expect(matchPath(files, "sql/querys.py")).toMatchObject({
      status: "found",
      path: "a/models/sql/query.py",
      rule: "basename",
    });
    expect(matchPath(files, "x/querys.py")).toEqual({
      status: "ambiguous",
      rule: "basename",
      candidates: ["a/models/query.py", "a/models/sql/query.py", "a/query.py"],
      total: 3,
    });
    expect(matchPath(files, "completely_unrelated_name.py")).toEqual({ status: "not-found", candidates: [] });
  });

  it("says which file it chose and why, or lists the candidates", async () => {
    const workspace = await open();
    const bySuffix = await viewFile(workspace, { path: "utils/text.py", end: 1 });
    expect(renderViewFile(bySuffix)).toBe(
      'src/app/utils/text.py (the only file whose path ends with "utils/text.py"): lines 1-1 of 5 lines\n1\timport re\n[lines 2-5 not shown; view them with start=2]\n',
    );
    const byName = await viewFile(workspace, { path: "src/app/confg.py", end: 1 });
    expect(renderViewFile(byName)).toContain(
      'src/app/config.py (no file "src/app/confg.py"; chosen as the closest file name',
    );
    const caseless = await viewFile(workspace, { path: "SRC/APP/CONFIG.PY" });
    expect(renderViewFile(caseless)).toContain('src/app/config.py (no file "SRC/APP/CONFIG.PY"; chosen ignoring case)');
    const ambiguous = await viewFile(workspace, { path: "__init__.py" });
    expect(ambiguous).toEqual({
      status: "ambiguous",
      requested: "__init__.py",
      rule: "suffix",
      candidates: ["src/app/__init__.py", "src/app/utils/__init__.py"],
      total: 2,
    });
    expect(renderViewFile(ambiguous)).toBe(
      '"__init__.py" is ambiguous: 2 files ending with it. Give one of these paths:\nsrc/app/__init__.py\nsrc/app/utils/__init__.py\n',
    );
    const missing = await viewFile(workspace, { path: "nothing/like/this_at_all.go" });
    expect(renderViewFile(missing)).toMatch(/^No such file: "nothing\/like\/this_at_all.go"/);
  });
});

describe("line windows and caps", () => {
  it("shows 150 lines by default and says where to continue", async () => {
    const result = await shown({ path: "data/long.txt" });
    expect(result).toMatchObject({
      totalLines: 400,
      startLine: 1,
      endLine: 150,
      cappedBy: "lines",
      nextStart: 151,
      cutLine: null,
    });
    expect(result.lines).toHaveLength(150);
    expect(renderViewFile(result).split("\n").at(-2)).toBe(
      "[window ended at line 150 by the line cap; continue with start=151]",
    );
  });

  it("shows exactly the requested window, numbered like cat -n", async () => {
    const result = await shown({ path: "data/long.txt", start: 98, end: 101 });
    expect(result.lines).toEqual(["line 98", "line 99", "line 100", "line 101"]);
    expect(renderViewFile(result)).toBe(
      "data/long.txt: lines 98-101 of 400 lines\n 98\tline 98\n 99\tline 99\n100\tline 100\n101\tline 101\n[lines 102-400 not shown; view them with start=102]\n",
    );
  });

  it("clamps an end past the file's last line; the last window says nothing more follows", async () => {
    const result = await shown({ path: "data/long.txt", start: 390, end: 9999 });
    expect(result).toMatchObject({ startLine: 390, endLine: 400, cappedBy: null, nextStart: null });
  });

  it("stops before the line that would pass the character cap, never mid-line", async () => {
    const result = await shown({ path: "data/long.txt", start: 1, end: 400 }, { viewMaxChars: 100 });
    // "line 1".."line 9": 7 characters each with the newline = 63; "line 10".. 8 each: 63 + 4·8 = 95 ≤ 100 < 103.
    expect(result).toMatchObject({ startLine: 1, endLine: 13, cappedBy: "chars", nextStart: 14, cutLine: null });
    expect(result.lines.at(-1)).toBe("line 13");
  });

  it("cuts a single line longer than the character cap, and says so", async () => {
    const result = await shown({ path: "data/long_line.txt" });
    expect(result.cutLine).toEqual({ line: 1, shownChars: 10_000, totalChars: 25_108 });
    expect(result).toMatchObject({ endLine: 1, cappedBy: "chars", nextStart: 2 });
    expect(renderViewFile(result)).toContain("[line 1 is 25108 characters long: cut after 10000]");
  });

  it("honours configured caps", async () => {
    const result = await shown({ path: "data/long.txt" }, { viewMaxLines: 10 });
    expect(result).toMatchObject({ endLine: 10, cappedBy: "lines", nextStart: 11 });
  });

  it("handles empty files, a missing final newline, CRLF and Latin-1", async () => {
    expect(renderViewFile(await shown({ path: "data/empty.txt" }))).toBe("data/empty.txt: empty file\n");
    expect((await shown({ path: "data/no_final_newline.txt" })).lines).toEqual(["alpha", "beta"]);
    expect((await shown({ path: "data/windows.txt" })).lines).toEqual(["first run", "second RUN", "third"]);
    expect((await shown({ path: "data/latin1.txt" })).lines).toEqual(["caf\uFFFD run", "na\uFFFDve"]);
  });

  it("refuses windows that make no sense, binary files and folders", async () => {
    const workspace = await open();
    await expect(viewFile(workspace, { path: "data/long.txt", start: 401 })).rejects.toThrow(
      "start 401 is past the end of data/long.txt, which has 400 lines",
    );
    await expect(viewFile(workspace, { path: "data/long.txt", start: 10, end: 9 })).rejects.toThrow(
      "end must be an integer at least start (10)",
    );
    await expect(viewFile(workspace, { path: "data/long.txt", start: 0 })).rejects.toThrow(
      "start must be a positive integer",
    );
    await expect(viewFile(workspace, { path: "data/blob.bin" })).rejects.toMatchObject({
      code: "binary",
      message: "data/blob.bin is a binary file (it holds NUL bytes); it is not shown",
    });
    await expect(viewFile(workspace, { path: "src/app" })).rejects.toThrow(
      '"src/app" is a folder, not a file: list it with repo_tree',
    );
    await expect(viewFile(workspace, { path: "." })).rejects.toBeInstanceOf(ToolError);
  });

  it("follows a symbolic link that stays inside and says where it points", async () => {
    const result = await shown({ path: "links/inside.py" });
    expect(result.symlinkTarget).toBe("src/app/config.py");
    expect(renderViewFile(result)).toContain("links/inside.py → src/app/config.py: lines 1-1 of 1 lines");
  });
});

describe("files over the size limit", () => {
  it("reads only up to the window of a file over maxFileBytes", async () => {
    const workspace = await open({ maxFileBytes: 1000 });
    const head = await viewFile(workspace, { path: "data/long.txt", start: 5, end: 7 });
    expect(head).toMatchObject({
      status: "shown",
      totalLines: null,
      startLine: 5,
      endLine: 7,
      lines: ["line 5", "line 6", "line 7"],
      nextStart: 8,
    });
    const tail = await viewFile(workspace, { path: "data/long.txt", start: 399 });
    expect(tail).toMatchObject({ status: "shown", totalLines: 400, startLine: 399, endLine: 400, nextStart: null });
    expect(workspace.stats().cachedBytes).toBeLessThan(1000);
    const bigDefault = await viewFile(workspace, { path: "data/long.txt" });
    expect(bigDefault).toMatchObject({ endLine: 150, cappedBy: "lines", nextStart: 151, totalLines: null });
    expect(LONG_FILE.length).toBeGreaterThan(1000);
  });
});
