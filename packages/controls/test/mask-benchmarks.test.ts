import { loadBenchmark } from "@loclab/datasets";
import { goldFromPatch } from "@loclab/gold";
import type { Instance } from "@loclab/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { type MaskLevel, knownFilesFromInstance, maskIssuePaths } from "../src/index.js";
import { expectRestIdentical } from "./expect-rest-identical.js";

// Evidence for path masking (domain.md §4) over every issue of the three benchmarks
// (300 + 500 + 560 = 1,360), read at run time from the shared data folder.
const BENCHMARKS = ["lite", "verified", "locbench"] as const;
type Benchmark = (typeof BENCHMARKS)[number];
type MentionCheck = "path" | "module" | "basename";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The text with every run of `/` and `\` read as one `/`, so Windows paths count too. */
const slashed = (text: string) => text.replace(/[\\/]+/g, "/");

/**
 * The dotted module names of a Python file, written independently of the package: every run
 * of two or more trailing components of its module path (`lib/matplotlib/axes/_axes.py` →
 * `lib.matplotlib.axes._axes`, `matplotlib.axes._axes`, `axes._axes`; `__init__` dropped).
 */
function dottedNames(file: string): string[] {
  if (!/\.(?:py|pyi|pyx)$/.test(file)) return [];
  const components = file.replace(/\.(?:py|pyi|pyx)$/, "").split("/");
  if (components.at(-1) === "__init__") components.pop();
  const names: string[] = [];
  for (let start = 0; start <= components.length - 2; start += 1) {
    const tail = components.slice(start);
    if (tail.every((component) => /^[A-Za-z_]\w*$/.test(component))) names.push(tail.join("."));
  }
  return names;
}

/** Which kinds of mention of its gold files an issue text holds. */
function mentions(text: string, goldFiles: readonly string[]): Record<MentionCheck, boolean> {
  const normalized = slashed(text);
  const has = (pattern: string) => new RegExp(pattern).test(normalized);
  return {
    // The gold path, not glued to a longer name (`xquery.py`, `query.pyc`).
    path: goldFiles.some((file) => has(`(?<![\\w.\\-])${escape(file)}(?!\\w)`)),
    // A module name where a name starts (not `self.models.query`).
    module: goldFiles.some((file) => dottedNames(file).some((name) => has(`(?<![\\w.])${escape(name)}(?!\\w)`))),
    basename: goldFiles.some((file) => has(`(?<![\\w.\\-])${escape(file.split("/").at(-1) as string)}(?!\\w)`)),
  };
}

interface Row {
  benchmark: Benchmark;
  instance: Instance;
  gold: string[];
  before: Record<MentionCheck, boolean>;
  after: Record<"paths" | "modules", Record<MentionCheck, boolean>>;
  masked: Record<"paths" | "modules", string>;
}

const rows: Row[] = [];

beforeAll(async () => {
  for (const benchmark of BENCHMARKS) {
    const { instances } = await loadBenchmark(benchmark);
    for (const instance of instances) {
      const gold = goldFromPatch(instance.patch, { instanceId: instance.instance_id }).files;
      const knownFiles = knownFilesFromInstance(instance);
      const maskAt = (level: MaskLevel) => maskIssuePaths(instance.problem_statement, { knownFiles, level }).text;
      const masked = { paths: maskAt("paths"), modules: maskAt("modules") };
      rows.push({
        benchmark,
        instance,
        gold,
        before: mentions(instance.problem_statement, gold),
        after: { paths: mentions(masked.paths, gold), modules: mentions(masked.modules, gold) },
        masked,
      });
    }
  }
});

describe("path masking over all 1,360 issues of lite, verified and locbench", () => {
  it("loads every issue", () => {
    expect(BENCHMARKS.map((benchmark) => rows.filter((row) => row.benchmark === benchmark).length)).toEqual([300, 500, 560]);
  });

  it("prints how many issues mention their gold files, before and after masking", () => {
    const count = (list: readonly Row[], pick: (row: Row) => boolean) => list.filter(pick).length;
    const table = [...BENCHMARKS, "all" as const].map((benchmark) => {
      const list = benchmark === "all" ? rows : rows.filter((row) => row.benchmark === benchmark);
      const line: Record<string, number | string> = { benchmark, issues: list.length };
      for (const check of ["path", "module", "basename"] as const) {
        line[`${check} before`] = count(list, (row) => row.before[check]);
        line[`${check} after paths`] = count(list, (row) => row.after.paths[check]);
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

  it("leaves no gold file path after masking at level paths", () => {
    const leaks = rows.filter((row) => row.after.paths.path).map((row) => row.instance.instance_id);
    expect(leaks).toEqual([]);
  });

  it("leaves no gold dotted module path (Python gold files) after masking at level modules", () => {
    const leaks = rows.filter((row) => row.after.modules.module || row.after.modules.path).map((row) => row.instance.instance_id);
    expect(leaks).toEqual([]);
  });

  it("keeps every other byte at every level, and masking twice changes nothing more", () => {
    for (const row of rows) {
      const knownFiles = knownFilesFromInstance(row.instance);
      const symbols = goldFromPatch(row.instance.patch, { instanceId: row.instance.instance_id }).symbols;
      for (const level of ["paths", "modules", "symbols"] as const) {
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
    const masked = row.masked.paths.split("\n");
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
    expect(row.masked.paths).toContain('File "/usr/local/lib/python3.8/site-packages/django_otp/middleware.py", line 38, in _verify_user');
  });
});
