import { describe, expect, it } from "vitest";
import { globFilter, openWorkspace, renderSearchCode, searchCode } from "../src/index.js";
import { writeSampleRepo } from "./sample-repo.js";

const root = writeSampleRepo();
const open = (limits = {}) => openWorkspace({ root, limits });
const hitKeys = (result: Awaited<ReturnType<typeof searchCode>>) => result.hits.map((hit) => `${hit.path}:${hit.line}`);

describe("search_code", () => {
  it("finds literal text, one hit per line, ordered by path then line", async () => {
    const result = await searchCode(await open(), { query: "run" });
    expect(hitKeys(result)).toEqual([
      ".hidden_notes.txt:1",
      "data/latin1.txt:1",
      "data/windows.txt:1",
      "docs/index.rst:3",
      "src/app/__init__.py:1",
      "src/app/__init__.py:3",
      "src/app/core.py:9",
      "tests/test_core.py:1",
      "tests/test_core.py:4",
      "tests/test_core.py:5",
    ]);
    expect(result).toMatchObject({ totalHits: 10, truncated: 0, filesWithHits: 7 });
    expect(result.hits[2]).toEqual({ path: "data/windows.txt", line: 1, text: "first run" }); // the \r is not part of the text
    expect(result.hits.find((hit) => hit.path === "data/latin1.txt")?.text).toBe("caf\uFFFD run");
  });

  it("is literal: regular-expression characters match themselves", async () => {
    const workspace = await open();
    expect(hitKeys(await searchCode(workspace, { query: "[^a-z]+" }))).toEqual(["src/app/utils/text.py:5"]);
    expect(hitKeys(await searchCode(workspace, { query: "a(){" }))).toEqual(["vendor/lib.min.js:1"]);
    expect(hitKeys(await searchCode(workspace, { query: "." + "*" }))).toEqual([]);
  });

  it("is case-sensitive by default; ignoreCase folds Unicode too", async () => {
    const workspace = await open();
    expect(hitKeys(await searchCode(workspace, { query: "RUN" }))).toEqual(["data/windows.txt:2"]);
    expect((await searchCode(workspace, { query: "RUN", ignoreCase: true })).totalHits).toBe(11);
    expect(hitKeys(await searchCode(workspace, { query: "école", ignoreCase: true }))).toEqual(["data/unicode.txt:1"]);
    expect(hitKeys(await searchCode(workspace, { query: "STRASSE", ignoreCase: true }))).toEqual([]); // lower-casing, not full case folding
    // "İ".toLowerCase() is "i" + U+0307: no match, as under ripgrep's simple case folding.
    expect(hitKeys(await searchCode(workspace, { query: "istanbul", ignoreCase: true }))).toEqual([]);
    expect(hitKeys(await searchCode(workspace, { query: "İSTANBUL", ignoreCase: true }))).toEqual([
      "data/unicode.txt:2",
    ]);
  });

  it("caps the hits and counts what it cut", async () => {
    const result = await searchCode(await open(), { query: "line ", maxHits: 3 });
    expect(hitKeys(result)).toEqual(["data/long.txt:1", "data/long.txt:2", "data/long.txt:3"]);
    expect(result).toMatchObject({ totalHits: 400, truncated: 397, filesWithHits: 1 });
    expect(renderSearchCode(result)).toBe(
      '400 matching lines for "line " in 1 file; showing the first 3, 397 more not shown\ndata/long.txt:1:line 1\ndata/long.txt:2:line 2\ndata/long.txt:3:line 3\n[397 more hits not shown: narrow the search with a longer query or a glob]\n',
    );
    const defaults = await searchCode(await open({ searchDefaultHits: 7 }), { query: "line " });
    expect(defaults.hits).toHaveLength(7);
  });

  it("restricts to a glob", async () => {
    const workspace = await open();
    expect(hitKeys(await searchCode(workspace, { query: "run", glob: "*.py" }))).toEqual([
      "src/app/__init__.py:1",
      "src/app/__init__.py:3",
      "src/app/core.py:9",
      "tests/test_core.py:1",
      "tests/test_core.py:4",
      "tests/test_core.py:5",
    ]);
    expect(hitKeys(await searchCode(workspace, { query: "run", glob: "src" }))).toEqual([
      "src/app/__init__.py:1",
      "src/app/__init__.py:3",
      "src/app/core.py:9",
    ]);
    expect(hitKeys(await searchCode(workspace, { query: "run", glob: "src/app/core.py" }))).toEqual([
      "src/app/core.py:9",
    ]);
    expect(hitKeys(await searchCode(workspace, { query: "run", glob: "!*.py" }))).toEqual([
      ".hidden_notes.txt:1",
      "data/latin1.txt:1",
      "data/windows.txt:1",
      "docs/index.rst:3",
    ]);
  });

  it("refuses a glob with an unclosed [ or { instead of matching nothing; an escaped one is literal", async () => {
    const workspace = await open();
    await expect(searchCode(workspace, { query: "run", glob: "[" })).rejects.toMatchObject({
      code: "invalid-input",
      message: 'glob "[" has an unclosed "[" (it would match nothing); write \\[ for a literal one',
    });
    await expect(searchCode(workspace, { query: "run", glob: "src/{app" })).rejects.toMatchObject({
      message: expect.stringContaining('has an unclosed "{"'),
    });
    expect(hitKeys(await searchCode(workspace, { query: "run", glob: "[s]rc" }))).toEqual([
      "src/app/__init__.py:1",
      "src/app/__init__.py:3",
      "src/app/core.py:9",
    ]);
    expect(hitKeys(await searchCode(workspace, { query: "run", glob: "\\[" }))).toEqual([]);
  });

  it("skips binary files and symbolic links, and clips very long lines around the match", async () => {
    const workspace = await open();
    const result = await searchCode(workspace, { query: "needle" });
    expect(result.hits).toHaveLength(1);
    const hit = result.hits[0];
    expect(hit).toMatchObject({ path: "data/long_line.txt", line: 1, clipped: true });
    expect(hit?.text).toHaveLength(300);
    expect(hit?.text).toContain(" needle ");
    expect(result.skipped).toEqual({ binary: 1, unreadable: 0, symlinks: 3 });
    expect((await searchCode(workspace, { query: "PNG" })).totalHits).toBe(0);
    expect((await searchCode(workspace, { query: "DEBUG" })).hits.map((h) => h.path)).toEqual(["src/app/config.py"]);
  });

  it("streams files over maxFileBytes and finds the same hits", async () => {
    const small = await open({ maxFileBytes: 64 });
    const big = await open();
    for (const query of ["line 39", "run", "needle", "É"]) {
      for (const ignoreCase of [false, true]) {
        const streamed = await searchCode(small, { query, ignoreCase, maxHits: 1000 });
        const whole = await searchCode(big, { query, ignoreCase, maxHits: 1000 });
        expect(streamed).toEqual(whole);
      }
    }
    expect(small.stats().cachedBytes).toBeLessThan(2000);
  });

  it("refuses unusable queries", async () => {
    const workspace = await open();
    await expect(searchCode(workspace, { query: "" })).rejects.toMatchObject({
      code: "invalid-input",
      message: "query is empty: give the literal text to search for",
    });
    await expect(searchCode(workspace, { query: "a\nb" })).rejects.toThrow("query holds a line break");
    await expect(searchCode(workspace, { query: "a\0b" })).rejects.toMatchObject({
      code: "refused",
      message: "query contains a NUL byte",
    });
    await expect(searchCode(workspace, { query: "x".repeat(1001) })).rejects.toMatchObject({
      code: "refused",
      message: "query is 1001 characters long; the limit is 1000",
    });
    await expect(searchCode(workspace, { query: "x", maxHits: 0 })).rejects.toThrow(
      "maxHits must be a positive integer",
    );
  });

  it("renders no match plainly", async () => {
    const result = await searchCode(await open(), { query: "zzz_not_there", glob: "*.py" });
    expect(renderSearchCode(result)).toBe(
      'No matches for "zzz_not_there" in files matching "*.py" (12 files searched)\n',
    );
  });
});

describe("glob semantics", () => {
  const select = (glob: string, paths: string[]) => paths.filter(globFilter(glob, { maxLength: 1024 }));
  const paths = [
    "a.py",
    "src/a.py",
    "src/pkg/b.py",
    "src/pkg/tests/test_b.py",
    "docs/index.rst",
    ".github/ci.yml",
    "src/docs.py",
  ];

  it("a glob without / matches a file or folder name at any depth", () => {
    expect(select("*.py", paths)).toEqual([
      "a.py",
      "src/a.py",
      "src/pkg/b.py",
      "src/pkg/tests/test_b.py",
      "src/docs.py",
    ]);
    expect(select("tests", paths)).toEqual(["src/pkg/tests/test_b.py"]);
    expect(select("*.yml", paths)).toEqual([".github/ci.yml"]);
  });

  it("a glob with / is anchored at the root and also selects what is below a matching folder", () => {
    expect(select("src/*.py", paths)).toEqual(["src/a.py", "src/docs.py"]);
    expect(select("src/pkg", paths)).toEqual(["src/pkg/b.py", "src/pkg/tests/test_b.py"]);
    expect(select("/src/**/test_*.py", paths)).toEqual(["src/pkg/tests/test_b.py"]);
    expect(select("./docs", paths)).toEqual(["docs/index.rst"]);
  });

  it("a trailing / selects folders only; a leading ! negates", () => {
    expect(select("docs/", paths)).toEqual(["docs/index.rst"]);
    expect(select("docs*", paths)).toEqual(["docs/index.rst", "src/docs.py"]);
    expect(select("!*.py", paths)).toEqual(["docs/index.rst", ".github/ci.yml"]);
    expect(select("{a,b}.py", paths)).toEqual(["a.py", "src/a.py", "src/pkg/b.py"]);
  });

  it("refuses empty, over-long and NUL globs", () => {
    expect(() => globFilter("", { maxLength: 10 })).toThrow("is empty");
    expect(() => globFilter("x".repeat(11), { maxLength: 10 })).toThrow("glob is 11 characters long; the limit is 10");
    expect(() => globFilter("a\0", { maxLength: 10 })).toThrow("glob contains a NUL byte");
  });
});
