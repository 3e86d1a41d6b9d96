import { loadBenchmark } from "@loclab/datasets";
import { goldFromPatch } from "@loclab/gold";
import type { Instance } from "@loclab/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { type MaskLevel, knownFilesFromInstance, maskIssuePaths } from "@loclab/controls";
import { expectRestIdentical } from "../packages/controls/test/expect-rest-identical.js";

// Evidence for path masking (docs/definitions.md §4) over every issue of the three benchmarks
// (300 + 500 + 560 = 1,360), read at run time from the shared data folder.
const BENCHMARKS = ["lite", "verified", "locbench"] as const;
type Benchmark = (typeof BENCHMARKS)[number];
type MentionCheck = "path" | "module" | "basename";

// The oracle below is written apart from the package, on purpose with another mechanism: it
// scans with indexOf and explicit character classes (the package uses regular expressions
// with lookbehind), and it builds dotted names right to left, stopping at the first component
// that is no identifier (the package filters runs left to right). Agreement of the two is the
// evidence; a shared bug would need the same mistake written twice, differently.

const isWord = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
const isIdentifier = (name: string) =>
  name.length > 0 &&
  !(name.charCodeAt(0) >= 48 && name.charCodeAt(0) <= 57) &&
  [...name].every((ch) => isWord(ch.charCodeAt(0)));

/** Whether `needle` occurs in `text` with no forbidden character right before it and no word character right after. */
function occurs(text: string, needle: string, forbiddenBefore: (code: number) => boolean): boolean {
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    const before = at === 0 ? -1 : text.charCodeAt(at - 1);
    const after = at + needle.length >= text.length ? -1 : text.charCodeAt(at + needle.length);
    if ((before === -1 || !forbiddenBefore(before)) && (after === -1 || !isWord(after))) return true;
  }
  return false;
}
/** Before a path or a file name: not a word character, `.` or `-` (so `xquery.py` is not `query.py`). */
const pathBefore = (code: number) => isWord(code) || code === 46 || code === 45;
/** Before a dotted module: not a word character or `.` (so `self.models.query` is not `models.query`). */
const moduleBefore = (code: number) => isWord(code) || code === 46;

/** Dotted names of a module file, built from the right: `a/b/c.py` → `b.c`, `a.b.c` (two components or more). */
function dottedNames(file: string): string[] {
  const suffix = [".py", ".pyi", ".pyx"].find((ending) => file.endsWith(ending));
  if (suffix === undefined) return [];
  const parts = file.slice(0, -suffix.length).split("/");
  if (parts[parts.length - 1] === "__init__") parts.length -= 1;
  const names: string[] = [];
  let tail = "";
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    const part = parts[i] as string;
    if (!isIdentifier(part)) break;
    tail = tail === "" ? part : `${part}.${tail}`;
    if (i <= parts.length - 2) names.push(tail);
  }
  return names;
}

/** Which kinds of mention of its gold files an issue text holds (backslashes read as slashes). */
function mentions(text: string, goldFiles: readonly string[]): Record<MentionCheck, boolean> {
  let normalized = "";
  for (const ch of text) {
    const slash = ch === "/" || ch === "\\";
    if (slash && normalized.endsWith("/")) continue;
    normalized += slash ? "/" : ch;
  }
  return {
    path: goldFiles.some((file) => occurs(normalized, file, pathBefore)),
    module: goldFiles.some((file) => dottedNames(file).some((name) => occurs(normalized, name, moduleBefore))),
    basename: goldFiles.some((file) => occurs(normalized, file.slice(file.lastIndexOf("/") + 1), pathBefore)),
  };
}

interface Row {
  benchmark: Benchmark;
  instance: Instance;
  gold: string[];
  before: Record<MentionCheck, boolean>;
  after: Record<"pathsOnly" | "modules", Record<MentionCheck, boolean>>;
  masked: Record<"pathsOnly" | "modules", string>;
}

const rows: Row[] = [];

beforeAll(async () => {
  for (const benchmark of BENCHMARKS) {
    const { instances } = await loadBenchmark(benchmark);
    for (const instance of instances) {
      const gold = goldFromPatch(instance.patch, { instanceId: instance.instance_id }).files;
      const knownFiles = knownFilesFromInstance(instance);
      const maskAt = (level: MaskLevel) => maskIssuePaths(instance.problem_statement, { knownFiles, level }).text;
      const masked = { pathsOnly: maskAt("paths-only"), modules: maskAt("modules") };
      rows.push({
        benchmark,
        instance,
        gold,
        before: mentions(instance.problem_statement, gold),
        after: { pathsOnly: mentions(masked.pathsOnly, gold), modules: mentions(masked.modules, gold) },
        masked,
      });
    }
  }
});

describe("path masking over all 1,360 issues of lite, verified and locbench", () => {
  it("loads every issue", () => {
    expect(BENCHMARKS.map((benchmark) => rows.filter((row) => row.benchmark === benchmark).length)).toEqual([
      300, 500, 560,
    ]);
  });

  it("prints how many issues mention their gold files, before and after masking", () => {
    const count = (list: readonly Row[], pick: (row: Row) => boolean) => list.filter(pick).length;
    const table = [...BENCHMARKS, "all" as const].map((benchmark) => {
      const list = benchmark === "all" ? rows : rows.filter((row) => row.benchmark === benchmark);
      const line: Record<string, number | string> = { benchmark, issues: list.length };
      for (const check of ["path", "module", "basename"] as const) {
        line[`${check} before`] = count(list, (row) => row.before[check]);
        line[`${check} after paths-only`] = count(list, (row) => row.after.pathsOnly[check]);
        line[`${check} after modules`] = count(list, (row) => row.after.modules[check]);
      }
      return line;
    });
    console.log("Issues mentioning their gold files (path / dotted module / basename), before and after masking:");
    console.table(table);
    const all = table.at(-1) as Record<string, number>;
    expect(all["path before"]).toBeGreaterThan(0);
    expect(all["module before"]).toBeGreaterThan(0);
  });

  it("leaves no gold file path after masking at level paths-only", () => {
    const leaks = rows.filter((row) => row.after.pathsOnly.path).map((row) => row.instance.instance_id);
    expect(leaks).toEqual([]);
  });

  it("leaves no gold dotted module path (Python gold files) after masking at level modules", () => {
    const leaks = rows
      .filter((row) => row.after.modules.module || row.after.modules.path)
      .map((row) => row.instance.instance_id);
    expect(leaks).toEqual([]);
  });

  it("keeps every other byte at every level, and masking twice changes nothing more", () => {
    for (const row of rows) {
      const knownFiles = knownFilesFromInstance(row.instance);
      const symbols = goldFromPatch(row.instance.patch, { instanceId: row.instance.instance_id }).symbols;
      for (const level of ["paths-only", "modules", "symbols"] as const) {
        const result = maskIssuePaths(row.instance.problem_statement, { knownFiles, level, symbols });
        expectRestIdentical(row.instance.problem_statement, result);
        expect(maskIssuePaths(result.text, { knownFiles, level, symbols }).report.replacements).toEqual([]);
      }
    }
  });

  it("masks a real traceback frame by frame, keeping line numbers and function names", () => {
    const row = rows.find((candidate) => candidate.instance.instance_id === "django__django-13321") as Row;
    const frame = /^File "([^"]*)"(, line \d+, in .*)$/;
    const original = row.instance.problem_statement.split("\n");
    const masked = row.masked.pathsOnly.split("\n");
    expect(masked).toHaveLength(original.length);
    let maskedFrames = 0;
    original.forEach((line, i) => {
      const before = frame.exec(line);
      if (!before) return;
      const after = frame.exec(masked[i] as string);
      expect(after?.[2]).toBe(before[2]);
      // Django's own files are masked (gold, or inferred under the django package root);
      // a third-party package beside it (django_otp) is not.
      if ((before[1] as string).includes("site-packages/django/")) {
        expect(after?.[1]).toMatch(/^<path-\d+>$/);
        maskedFrames += 1;
      } else expect(after?.[1]).toBe(before[1]);
    });
    expect(maskedFrames).toBeGreaterThan(10);
    expect(row.masked.pathsOnly).toContain(
      'File "/usr/local/lib/python3.8/site-packages/django_otp/middleware.py", line 38, in _verify_user',
    );
  });
});
