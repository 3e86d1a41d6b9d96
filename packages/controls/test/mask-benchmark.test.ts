import { describe, expect, it } from "vitest";
import { dottedModuleNames } from "@loclab/python";
import { goldMentions, maskBenchmark } from "../src/index.js";

const instance = {
  instance_id: "owner__repo-1",
  problem_statement:
    "Crash in `query.py`: see django/db/models/query.py and django.db.models.query.QuerySet; _filter_or_exclude is wrong.",
  patch: [
    "diff --git a/django/db/models/query.py b/django/db/models/query.py",
    "--- a/django/db/models/query.py",
    "+++ b/django/db/models/query.py",
    "@@ -10,3 +10,3 @@ def _filter_or_exclude(self, negate, args, kwargs):",
    " a",
    "-b",
    "+B",
    " c",
    "",
  ].join("\n"),
};

describe("goldMentions", () => {
  it("detects path, dotted module, base name and symbol mentions", () => {
    expect(
      goldMentions(instance.problem_statement, {
        goldFiles: ["django/db/models/query.py"],
        symbols: ["_filter_or_exclude"],
      }),
    ).toEqual({
      path: true,
      module: true,
      basename: true,
      symbol: true,
    });
    expect(
      goldMentions("nothing here about xquery.py or query.pyc", { goldFiles: ["django/db/models/query.py"] }),
    ).toEqual({ path: false, module: false, basename: false, symbol: false });
    expect(dottedModuleNames("lib/matplotlib/axes/__init__.py")).toEqual(["lib.matplotlib.axes", "matplotlib.axes"]);
  });
});

describe("maskBenchmark", () => {
  it("masks each level and measures before and after", () => {
    const paths = maskBenchmark([instance], { level: "paths-only" });
    expect(paths.summary).toMatchObject({ level: "paths-only", instances: 1, instancesWithMention: 1 });
    expect(paths.rows[0]?.before).toEqual({ path: true, module: true, basename: true, symbol: true });
    expect(paths.rows[0]?.after).toMatchObject({ path: false, basename: false, module: true });
    const symbols = maskBenchmark([instance], { level: "symbols" });
    expect(symbols.rows[0]?.after).toEqual({ path: false, module: false, basename: false, symbol: false });
    expect(symbols.rows[0]?.maskedProblemStatement).toBe(
      "Crash in `<path-1>`: see <path-1> and <path-1>.QuerySet; <symbol-1> is wrong.",
    );
    expect(symbols.summary.mentionsReplaced).toEqual({ path: 1, module: 1, filename: 1, symbol: 1 });
  });
});
