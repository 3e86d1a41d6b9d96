import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MaskIssuePathsOptions, knownFilesFromInstance, maskIssuePaths, packageRootsOf } from "../src/index.js";
import { expectRestIdentical } from "./expect-rest-identical.js";

const DJANGO = ["django/db/models/query.py", "django/db/models/__init__.py", "tests/queries/tests.py"];
const mask = (text: string, options: Partial<MaskIssuePathsOptions> = {}) =>
  maskIssuePaths(text, { knownFiles: DJANGO, ...options });
const masked = (text: string, options: Partial<MaskIssuePathsOptions> = {}) => mask(text, options).text;

describe("path mentions (docs/definitions.md §4, level paths)", () => {
  it("masks a relative path, with ./, with a diff's a/ and with Windows backslashes", () => {
    expect(masked("See django/db/models/query.py line 5.")).toBe("See <path-1> line 5.");
    expect(masked("Open ./django/db/models/query.py now")).toBe("Open <path-1> now");
    expect(masked("--- a/django/db/models/query.py\n+++ b/django/db/models/query.py")).toBe(
      "--- <path-1>\n+++ <path-1>",
    );
    expect(masked(String.raw`In django\db\models\query.py, row 234`)).toBe("In <path-1>, row 234");
    // A JSON-escaped issue keeps doubled backslashes.
    expect(masked(String.raw`at django\\db\\models\\query.py:12`)).toBe("at <path-1>:12");
  });

  it("masks a tail of a known path", () => {
    expect(masked("the bug is in models/query.py")).toBe("the bug is in <path-1>");
  });

  it("replaces a whole absolute path whose trailing segments name a known file", () => {
    expect(masked("/usr/lib/python3/site-packages/django/db/models/query.py:12: in f")).toBe("<path-1>:12: in f");
    expect(
      maskIssuePaths("error in /home/user/proj/src/astropy/io/fits/card.py!", {
        knownFiles: ["astropy/io/fits/card.py"],
      }).text,
    ).toBe("error in <path-1>!");
    expect(masked(String.raw`C:\Users\me\venv\Lib\site-packages\django\db\models\query.py`)).toBe("<path-1>");
    // An installed copy lacks the repository's source folder (lib/, src/).
    const matplotlib = { knownFiles: ["lib/matplotlib/axes/_axes.py", "lib/matplotlib/colors.py"] };
    const result = maskIssuePaths(
      "~/env/lib/python3.9/site-packages/matplotlib/axes/_axes.py in scatter\n.../matplotlib/colors.py:12",
      matplotlib,
    );
    expect(result.text).toBe("<path-1> in scatter\n<path-2>:12");
    expect(result.report.placeholders).toEqual({
      "<path-1>": "lib/matplotlib/axes/_axes.py",
      "<path-2>": "lib/matplotlib/colors.py",
    });
  });

  it("keeps the rest of a traceback line byte-identical", () => {
    const traceback = [
      "Traceback (most recent call last):",
      '  File "/home/u/app/manage.py", line 22, in <module>',
      "    main()",
      '  File "/usr/lib/python3.8/site-packages/django/db/models/query.py", line 1318, in _fetch_all',
      "    self._result_cache = list(self._iterable_class(self))",
      '  File "C:\\Program Files\\Python38\\Lib\\site-packages\\django\\db\\models\\query.py", line 53, in __iter__',
      "ValueError: boom",
    ].join("\r\n");
    const result = mask(traceback);
    expect(result.text.split("\r\n")).toEqual([
      "Traceback (most recent call last):",
      '  File "/home/u/app/manage.py", line 22, in <module>',
      "    main()",
      '  File "<path-1>", line 1318, in _fetch_all',
      "    self._result_cache = list(self._iterable_class(self))",
      '  File "<path-1>", line 53, in __iter__',
      "ValueError: boom",
    ]);
    expect(result.report.counts).toEqual({ path: 2, module: 0, filename: 0, symbol: 0 });
    expectRestIdentical(traceback, result);
  });

  it("masks only the path part of a URL", () => {
    expect(masked("https://github.com/django/django/blob/main/django/db/models/query.py#L12-L20 and more")).toBe(
      "https://github.com/django/django/blob/main/<path-1>#L12-L20 and more",
    );
    expect(masked("[query](https://github.com/django/django/blob/3a1b2c/django/db/models/query.py)")).toBe(
      "[query](https://github.com/django/django/blob/3a1b2c/<path-1>)",
    );
  });

  it("masks a file name in backticks, or bare with an extension, when one known file has it", () => {
    expect(masked("The code in `query.py` is wrong; query.py. Also query.py:12")).toBe(
      "The code in `<path-1>` is wrong; <path-1>. Also <path-1>:12",
    );
    const known = { knownFiles: ["Makefile", "docs/Makefile", "tools/Dockerfile", "a/utils.py", "b/utils.py"] };
    expect(maskIssuePaths("edit `Dockerfile`, not the Dockerfile word", known).text).toBe(
      "edit `<path-1>`, not the Dockerfile word",
    );
    // Shared by two known files: names neither.
    expect(maskIssuePaths("see utils.py and `utils.py`", known).text).toBe("see utils.py and `utils.py`");
    // A known top-level file is a path, whatever else shares its basename.
    expect(maskIssuePaths("run make -f Makefile", known).report.replacements).toMatchObject([
      { kind: "path", file: "Makefile" },
    ]);
  });

  it("leaves what is not a repository file", () => {
    const untouched = [
      "Version 3.2.1 of Django, e.g. with Python 3.8.",
      "the query is slow and the models are fine",
      "the folder django/db/models/ holds it",
      "https://docs.djangoproject.com/en/4.1/ref/models/querysets/",
      "not my_query.py nor query.pyc nor query_utils.py",
    ];
    for (const text of untouched) expect(masked(text, { level: "modules" })).toBe(text);
    // Another project's file that shares only its basename with a known file.
    const sentence = { knownFiles: ["sentence_transformers/trainer.py"] };
    const foreign = ".venv/lib/python3.12/site-packages/transformers/trainer.py:419, in Trainer.__init__";
    expect(maskIssuePaths(foreign, sentence).text).toBe(foreign);
    // Shared folders that are all generic (tests/) do not make numpy's file astropy's.
    const astropy = { knownFiles: ["astropy/utils/tests/test_utils.py"] };
    const numpy = "/usr/lib/python3/site-packages/numpy/tests/test_utils.py";
    expect(maskIssuePaths(numpy, astropy).text).toBe(numpy);
  });

  it("infers repository files under a package root (generic patterns), marked inferred", () => {
    const known = { files: ["django/db/models/query.py"], roots: ["django"] };
    const text =
      'File "/usr/lib/python3/site-packages/django/core/handlers/base.py", line 3\nand /venvs/django/lib/python3.10/site-packages/torch/nn/module.py';
    const result = maskIssuePaths(text, { knownFiles: known });
    expect(result.text).toBe(
      'File "<path-1>", line 3\nand /venvs/django/lib/python3.10/site-packages/torch/nn/module.py',
    );
    expect(result.report.replacements).toMatchObject([
      { kind: "path", file: "django/core/handlers/base.py", inferred: true },
    ]);
    // A user or scratch folder named like the package is not the package.
    const ray = { knownFiles: { files: [], roots: ["python/ray"] } };
    expect(maskIssuePaths("/home/ray/proj/main.py and /tmp/ray/session_1/x.py", ray).text).toBe(
      "/home/ray/proj/main.py and /tmp/ray/session_1/x.py",
    );
    expect(
      maskIssuePaths("/opt/conda/lib/python3.11/site-packages/ray/util/queue.py", ray).report.replacements,
    ).toMatchObject([{ file: "python/ray/util/queue.py", inferred: true }]);
  });
});

describe("module mentions (level modules)", () => {
  it("masks dotted module paths, keeping a trailing attribute", () => {
    const text =
      "from django.db.models.query import QuerySet\ndjango.db.models.query.QuerySet.filter() and django.db.models.Q";
    expect(masked(text, { level: "modules" })).toBe(
      "from <path-1> import QuerySet\n<path-1>.QuerySet.filter() and <path-2>.Q",
    );
    expect(mask(text, { level: "modules" }).report.placeholders).toEqual({
      "<path-1>": "django/db/models/query.py",
      "<path-2>": "django/db/models/__init__.py",
    });
    // Not at level paths-only; the default level is modules (the control's definition).
    expect(masked(text, { level: "paths-only" })).toBe(text);
    expect(masked(text)).toBe(masked(text, { level: "modules" }));
    expect(() => masked(text, { level: "paths" as never })).toThrow('the level "paths" was renamed: use "modules"');
  });

  it("finds the import name of a file under a source folder, and takes a trailing .py along", () => {
    const known = { knownFiles: ["lib/matplotlib/axes/_axes.py", "vllm/platforms/openvino.py"] };
    expect(
      maskIssuePaths("matplotlib.axes._axes.Axes.bar and vllm.platforms.openvino.py", { ...known, level: "modules" })
        .text,
    ).toBe("<path-1>.Axes.bar and <path-2>");
  });

  it("does not take attribute chains or URL hosts for module paths", () => {
    const known = { knownFiles: ["models/query.py", "docs/python/org.py"], level: "modules" as const };
    expect(maskIssuePaths("self.models.query is set", known).text).toBe("self.models.query is set");
    expect(maskIssuePaths("see https://docs.python.org/3/", known).text).toBe("see https://docs.python.org/3/");
  });
});

describe("symbol mentions (level symbols)", () => {
  const symbols = [{ name: "_cstack", path: "astropy/modeling/separable.py" }];
  const knownFiles = ["astropy/modeling/separable.py"];

  it("masks gold symbol names as whole words", () => {
    const text = "_cstack(left, right) calls self._cstack(x) but not _cstack_all or my_cstack";
    const result = maskIssuePaths(text, { knownFiles, level: "symbols", symbols });
    expect(result.text).toBe("<symbol-1>(left, right) calls self.<symbol-1>(x) but not _cstack_all or my_cstack");
    expect(result.report.placeholders).toEqual({ "<symbol-1>": "astropy/modeling/separable.py" });
    expect(maskIssuePaths(text, { knownFiles, level: "modules", symbols }).text).toBe(text);
  });

  it("lets the longest overlapping mention win", () => {
    const text = "in astropy/modeling/separable.py, separable.py and separable";
    const result = maskIssuePaths(text, {
      knownFiles,
      level: "symbols",
      symbols: [{ name: "separable", path: knownFiles[0] as string }],
    });
    expect(result.text).toBe("in <path-1>, <path-1> and <symbol-1>");
  });

  it("requires the symbols at level symbols, and a known level", () => {
    expect(() => maskIssuePaths("x", { knownFiles, level: "symbols" })).toThrow(
      'level "symbols" requires the symbols option',
    );
    expect(() => maskIssuePaths("x", { knownFiles, level: "files" as never })).toThrow('unknown level "files"');
  });
});

describe("placeholders", () => {
  it("gives one placeholder per file across path, module and file-name mentions, numbered by first appearance", () => {
    const text =
      "`tests.py` fails; query.py and django.db.models.query and django/db/models/query.py; tests/queries/tests.py";
    const result = mask(text, { level: "modules" });
    expect(result.text).toBe("`<path-1>` fails; <path-2> and <path-2> and <path-2>; <path-1>");
    expect(result.report.placeholders).toEqual({
      "<path-1>": "tests/queries/tests.py",
      "<path-2>": "django/db/models/query.py",
    });
    expect(result.report.counts).toEqual({ path: 2, module: 1, filename: 2, symbol: 0 });
    expect(result.report.replacements.map((r) => [r.kind, r.original, r.placeholder])).toEqual([
      ["filename", "tests.py", "<path-1>"],
      ["filename", "query.py", "<path-2>"],
      ["module", "django.db.models.query", "<path-2>"],
      ["path", "django/db/models/query.py", "<path-2>"],
      ["path", "tests/queries/tests.py", "<path-1>"],
    ]);
    expectRestIdentical(text, result);
  });

  it("reports equally good candidates of a full checkout as alternatives", () => {
    const result = maskIssuePaths("see utils/base.py", { knownFiles: ["pkg_b/utils/base.py", "pkg_a/utils/base.py"] });
    expect(result.report.replacements).toMatchObject([
      { file: "pkg_a/utils/base.py", alternatives: ["pkg_b/utils/base.py"] },
    ]);
  });
});

describe("byte identity of everything else (property)", () => {
  const fragments = [
    "django/db/models/query.py",
    "./django/db/models/query.py",
    "django\\db\\models\\query.py",
    "/usr/lib/site-packages/django/db/models/query.py",
    "django.db.models.query",
    "django.db.models.Q",
    "`query.py`",
    "query.py",
    "tests.py",
    "query",
    "QuerySet",
    "e.g.",
    "3.2.1",
    " ",
    " ",
    "\n",
    "\r\n",
    ", ",
    ".",
    ":",
    '"',
    "`",
    "/",
    "\\",
    "https://github.com/django/django/blob/main/django/db/models/query.py#L1",
    "é",
    "😀",
    'File "',
    '", line 3',
    "_cstack",
    "self._cstack",
    "<path-1>",
  ];
  const text = fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((parts) => parts.join(""));

  it("removing replaced spans and placeholders leaves equal strings, at every level", () => {
    fc.assert(
      fc.property(text, fc.constantFrom("paths-only", "modules", "symbols" as const), (original, level) => {
        const result = mask(original, { level, symbols: [{ name: "_cstack", path: "x.py" }] });
        expectRestIdentical(original, result);
        for (const replacement of result.report.replacements) {
          expect(result.report.placeholders[replacement.placeholder]).toBe(replacement.file);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("knownFilesFromInstance", () => {
  it("takes every path of the patch and the test patch, and their package roots", () => {
    const instance = {
      instance_id: "django__django-1",
      patch: "--- a/django/db/models/query.py\n+++ b/django/db/models/query.py\n@@ -1 +1 @@\n-a\n+b\n",
      test_patch:
        "diff --git a/tests/queries/test_new.py b/tests/queries/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/queries/test_new.py\n@@ -0,0 +1 @@\n+x\n",
    };
    expect(knownFilesFromInstance(instance)).toEqual({
      files: ["django/db/models/query.py", "tests/queries/test_new.py"],
      roots: ["django"],
    });
  });

  it("finds package roots through source folders, and none in generic folders", () => {
    expect(
      packageRootsOf([
        "lib/matplotlib/axes/_axes.py",
        "src/_pytest/python.py",
        "sdk/python/feast/x.py",
        "tests/t.py",
        "docs/conf.py",
        "setup.py",
        ".github/w.yml",
      ]),
    ).toEqual(["lib/matplotlib", "sdk/python/feast", "src/_pytest"]);
  });
});
