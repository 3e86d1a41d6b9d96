import { goldFromPatch } from "@loclab/gold";
import type { Prediction } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import {
  mapGold,
  mapIssueText,
  mapPredictions,
  planShuffle,
  UNMAPPED_PATH_PREFIX,
  unmapGold,
  unmapIssueText,
  unmapPredictions,
  type MappedIssueText,
} from "../src/index.js";

const FILES = [
  "django/__init__.py",
  "django/db/__init__.py",
  "django/db/models/__init__.py",
  "django/db/models/query.py",
  "django/db/models/sql/__init__.py",
  "django/db/models/sql/compiler.py",
  "django/utils/base.py",
  "tests/utils/base.py",
  "django/forms/widgets/base.py",
  "django/contrib/admin/widgets/base.py",
  "tests/queries/tests.py",
  "docs/ref/models.txt",
  "setup.py",
];
const plan = planShuffle(FILES, { seed: 21 });
const f = (path: string) => plan.files[path] as string;
const d = (path: string) => plan.directories[path] as string;
const stem = (path: string) => (f(path).split("/").at(-1) as string).replace(/\.py$/, "");
const dotted = (path: string) =>
  f(path)
    .replace(/\.py$/, "")
    .replace(/\/__init__$/, "")
    .split("/")
    .join(".");

/** Outside the replaced spans the text is byte-identical. */
function expectRestIdentical(original: string, result: MappedIssueText): void {
  let cursor = 0;
  let rebuilt = "";
  for (const replacement of result.report.replacements) {
    expect(original.slice(replacement.start, replacement.end)).toBe(replacement.original);
    rebuilt += original.slice(cursor, replacement.start) + replacement.replacement;
    cursor = replacement.end;
  }
  expect(rebuilt + original.slice(cursor)).toBe(result.text);
}

describe("mapIssueText (docs/definitions.md §4: issue text through the same renaming)", () => {
  it("rewrites paths, keeping what is not the repository's", () => {
    const text = [
      "The bug is in django/db/models/query.py line 12, see also ./django/db/models/sql/compiler.py.",
      'File "/usr/lib/python3/site-packages/django/db/models/query.py", line 12, in filter',
      String.raw`C:\venv\Lib\site-packages\django\db\models\query.py`,
      "https://github.com/django/django/blob/main/django/db/models/query.py#L12",
      "Edit setup.py and models/query.py.",
    ].join("\n");
    const result = mapIssueText(plan, text);
    const query = f("django/db/models/query.py");
    expect(result.text).toBe(
      [
        `The bug is in ${query} line 12, see also ./${f("django/db/models/sql/compiler.py")}.`,
        `File "/usr/lib/python3/site-packages/${query}", line 12, in filter`,
        "C:\\venv\\Lib\\site-packages\\" + query.split("/").join("\\"),
        `https://github.com/django/django/blob/main/${query}#L12`,
        `Edit ${f("setup.py")} and ${query.split("/").slice(-2).join("/")}.`,
      ].join("\n"),
    );
    expectRestIdentical(text, result);
    expect(result.report.counts.path).toBe(7);
  });

  it("rewrites dotted module paths (attributes kept), unique file names and folders", () => {
    const text =
      "QuerySet is django.db.models.query.QuerySet; the package django.db.models; the file `query.py`; the folder django/db/models/ and tests/queries/.";
    const result = mapIssueText(plan, text);
    expect(result.text).toBe(
      `QuerySet is ${dotted("django/db/models/query.py")}.QuerySet; the package ${dotted("django/db/models/__init__.py")}; ` +
        `the file \`${stem("django/db/models/query.py")}.py\`; the folder ${d("django/db/models")}/ and ${d("tests/queries")}/.`,
    );
    expect(result.report.counts).toEqual({ path: 0, module: 2, filename: 1, directory: 2 });
    expectRestIdentical(text, result);
  });

  it("leaves a lone package name, shared file names, symbols and other projects' files", () => {
    const text = "In django, base.py breaks QuerySet.filter; numpy/core/numeric.py too.";
    const result = mapIssueText(plan, text);
    expect(result.text).toBe(text);
    expect(result.report.replacements).toEqual([]);
  });

  it("reports a mention that fits two files with different new names as ambiguous, and leaves it", () => {
    const text = "see /home/me/proj/widgets/base.py";
    const result = mapIssueText(plan, text);
    expect(result.text).toBe(text);
    expect(result.report.left).toEqual([
      expect.objectContaining({
        reason: "ambiguous",
        original: "/home/me/proj/widgets/base.py",
        candidates: expect.arrayContaining(["django/forms/widgets/base.py"]),
      }),
    ]);
  });

  it("maps consistently (one file, one new name, whatever the form) and round-trips", () => {
    const text =
      "django/db/models/query.py, query.py and django.db.models.query all name one file; django/db/models/query.py again.";
    const result = mapIssueText(plan, text);
    const names = new Set(result.report.replacements.map((replacement) => replacement.target));
    expect(names).toEqual(new Set(["django/db/models/query.py"]));
    expect(result.text).not.toMatch(/query/);
    expect(unmapIssueText(plan, result.text).text).toBe(text);
  });
});

describe("mapGold / unmapGold", () => {
  const patch = [
    "diff --git a/django/db/models/query.py b/django/db/models/query.py",
    "--- a/django/db/models/query.py",
    "+++ b/django/db/models/query.py",
    "@@ -10,2 +10,2 @@ def filter(self):",
    "-    old",
    "+    new",
    " context",
    "diff --git a/django/db/models/fresh.py b/django/db/models/fresh.py",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/django/db/models/fresh.py",
    "@@ -0,0 +1 @@",
    "+created = True",
    "",
  ].join("\n");
  const gold = goldFromPatch(patch, { instanceId: "django__django-1" });

  it("maps every path field, folders-only for created files, and round-trips exactly", () => {
    const mapped = mapGold(plan, gold);
    expect(mapped.gold.files).toEqual([f("django/db/models/query.py")]);
    expect(mapped.gold.created).toEqual([`${d("django/db/models")}/fresh.py`]);
    expect(mapped.gold.spans.map((span) => span.path)).toEqual([f("django/db/models/query.py")]);
    expect(mapped.gold.symbols.map((symbol) => symbol.path)).toEqual([f("django/db/models/query.py")]);
    expect(mapped.unmapped).toEqual(["django/db/models/fresh.py"]);
    expect(unmapGold(plan, mapped.gold).gold).toEqual(gold);
  });
});

describe("unmapPredictions (predictions mapped back before scoring)", () => {
  const original: Prediction[] = [
    {
      instanceId: "django__django-1",
      files: ["django/db/models/query.py", "django/db/models/sql/compiler.py"],
      locations: [
        { path: "django/db/models/query.py", startLine: 3, endLine: 9, role: "edit", symbol: "QuerySet.filter" },
      ],
      modules: ["django/db/models/query.py:QuerySet"],
      functions: ["django/db/models/query.py:QuerySet.filter", "django/db/models/sql/compiler.py:SQLCompiler.as_sql"],
    },
  ];

  it("round-trips exactly", () => {
    const shuffled = mapPredictions(plan, original);
    expect(shuffled.unmapped).toEqual([]);
    expect(shuffled.predictions[0]?.files).toEqual([
      f("django/db/models/query.py"),
      f("django/db/models/sql/compiler.py"),
    ]);
    expect(shuffled.predictions[0]?.functions?.[0]).toBe(`${f("django/db/models/query.py")}:QuerySet.filter`);
    expect(unmapPredictions(plan, shuffled.predictions).predictions).toEqual(original);
  });

  it("marks a path the shuffled tree does not have (an original path from memory), keeping ranks", () => {
    const made: Prediction[] = [
      {
        instanceId: "x",
        files: ["django/db/models/query.py", `./${f("django/db/models/sql/compiler.py")}`, `a/${f("setup.py")}`],
        locations: [],
      },
    ];
    const back = unmapPredictions(plan, made);
    expect(back.predictions[0]?.files).toEqual([
      `${UNMAPPED_PATH_PREFIX}django/db/models/query.py`,
      "django/db/models/sql/compiler.py",
      "setup.py",
    ]);
    expect(back.unmapped).toEqual([{ instanceId: "x", field: "files", path: "django/db/models/query.py" }]);
    expect(unmapPredictions(plan, made, { unmapped: "drop" }).predictions[0]?.files).toEqual([
      "django/db/models/sql/compiler.py",
      "setup.py",
    ]);
    expect(unmapPredictions(plan, made, { unmapped: "keep" }).predictions[0]?.files[0]).toBe(
      "django/db/models/query.py",
    );
  });

  it("maps the finding's texts back too", () => {
    const finding = {
      locationExplanation: `${f("django/db/models/query.py")} builds the query`,
      rootCause: "the filter drops the alias",
      solutionIdea: `keep it in ${dotted("django/db/models/sql/compiler.py")}.SQLCompiler`,
      dependencies: "none",
      testingImpact: "tests/queries/tests.py",
    };
    const back = unmapPredictions(plan, [{ instanceId: "x", files: [], locations: [], finding }]);
    expect(back.predictions[0]?.finding).toEqual({
      ...finding,
      locationExplanation: "django/db/models/query.py builds the query",
      solutionIdea: "keep it in django.db.models.sql.compiler.SQLCompiler",
    });
  });
});
