import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  mapPath,
  parseShuffleMapping,
  planShuffle,
  SHUFFLE_KEEP_NAMES,
  splitFileName,
  unmapPath,
  type ShuffleMapping,
} from "../src/index.js";

const DJANGO = [
  "django/__init__.py",
  "django/__main__.py",
  "django/db/__init__.py",
  "django/db/models/__init__.py",
  "django/db/models/query.py",
  "django/db/models/query.pyi",
  "django/conf/locale/de/LC_MESSAGES/django.po",
  "django/conf/locale/de/LC_MESSAGES/django.mo",
  "django/contrib/admin/static/admin/js/jquery.js",
  "django/contrib/admin/static/admin/js/jquery.min.js",
  "django/contrib/auth/common-passwords.txt.gz",
  "django/py.typed",
  "tests/conftest.py",
  "tests/utils.py",
  "django/utils.py",
  ".gitignore",
  ".github/workflows/ci.yml",
  "setup.py",
  "setup.cfg",
  "README.rst",
  "LICENSE",
];

const DRAWN = /^[dm]_[a-z0-9]{6}$/;
const lastSegment = (path: string) => path.split("/").at(-1) as string;

describe("planShuffle (docs/definitions.md §4, repository shuffling)", () => {
  it("renames every folder and file name to a drawn Python identifier, keeping extensions", () => {
    const plan = planShuffle(DJANGO, { seed: 7 });
    expect(Object.keys(plan.files).sort()).toEqual([...DJANGO].sort());
    for (const [original, shuffled] of Object.entries(plan.directories)) {
      const name = lastSegment(shuffled);
      if (lastSegment(original).startsWith(".")) expect(name).toBe(lastSegment(original));
      else expect(name).toMatch(/^d_[a-z0-9]{6}$/);
      expect(name).toMatch(/^[A-Za-z_.][A-Za-z0-9_]*$/);
    }
    const file = (path: string) => lastSegment(plan.files[path] as string);
    expect(file("django/db/models/query.py")).toMatch(/^m_[a-z0-9]{6}\.py$/);
    expect(file("django/contrib/auth/common-passwords.txt.gz")).toMatch(/^m_[a-z0-9]{6}\.txt\.gz$/);
    expect(file("django/contrib/admin/static/admin/js/jquery.min.js")).toMatch(/^m_[a-z0-9]{6}\.min\.js$/);
    expect(file("LICENSE")).toMatch(DRAWN);
    expect(file("setup.py")).toMatch(/^m_[a-z0-9]{6}\.py$/);
    expect(file("README.rst")).toMatch(/^m_[a-z0-9]{6}\.rst$/);
  });

  it("keeps the keep-list and dot-names, and nothing else", () => {
    const plan = planShuffle(DJANGO, { seed: 7 });
    expect(SHUFFLE_KEEP_NAMES).toEqual(["__init__.py", "__init__.pyi", "__main__.py", "py.typed", "conftest.py"]);
    for (const [original, shuffled] of Object.entries(plan.files)) {
      const name = lastSegment(original);
      const kept = SHUFFLE_KEEP_NAMES.includes(name) || name.startsWith(".");
      expect(lastSegment(shuffled) === name, original).toBe(kept);
    }
    expect(plan.files[".github/workflows/ci.yml"]).toMatch(/^\.github\/d_[a-z0-9]{6}\/m_[a-z0-9]{6}\.yml$/);
    expect(plan.files["django/__init__.py"]).toBe(`${plan.directories.django}/__init__.py`);
    // A custom keep-list replaces the default.
    const custom = planShuffle(["pkg/__init__.py", "setup.py"], { seed: 1, keepNames: ["setup.py"] });
    expect(custom.files["setup.py"]).toBe("setup.py");
    expect(lastSegment(custom.files["pkg/__init__.py"] as string)).toMatch(/^m_[a-z0-9]{6}\.py$/);
  });

  it("keeps a top-level src/ (the src layout's import root) and renames a deeper one", () => {
    const plan = planShuffle(["src/pkg/__init__.py", "docs/src/x.txt"], { seed: 2 });
    expect(plan.directories.src).toBe("src");
    expect(lastSegment(plan.directories["src/pkg"] as string)).toMatch(/^d_[a-z0-9]{6}$/);
    expect(lastSegment(plan.directories["docs/src"] as string)).toMatch(/^d_[a-z0-9]{6}$/);
    expect(planShuffle(["src/a.py"], { seed: 2, keepTopLevel: [] }).directories.src).toMatch(/^d_[a-z0-9]{6}$/);
  });

  it("shares a drawn stem between files of one folder with the same stem, and only there", () => {
    const plan = planShuffle(DJANGO, { seed: 7 });
    const stem = (path: string) => splitFileName(lastSegment(plan.files[path] as string)).stem;
    expect(stem("django/db/models/query.pyi")).toBe(stem("django/db/models/query.py"));
    expect(stem("django/conf/locale/de/LC_MESSAGES/django.mo")).toBe(
      stem("django/conf/locale/de/LC_MESSAGES/django.po"),
    );
    expect(stem("django/contrib/admin/static/admin/js/jquery.min.js")).toBe(
      stem("django/contrib/admin/static/admin/js/jquery.js"),
    );
    // The same name in two folders does not give the same shuffled name.
    expect(stem("tests/utils.py")).not.toBe(stem("django/utils.py"));
  });

  it("is a bijection that keeps the tree's shape", () => {
    const plan = planShuffle(DJANGO, { seed: 3 });
    for (const record of [plan.files, plan.directories]) {
      expect(new Set(Object.values(record)).size).toBe(Object.keys(record).length);
    }
    for (const [original, shuffled] of Object.entries({ ...plan.directories, ...plan.files })) {
      const parent = original.split("/").slice(0, -1).join("/");
      const shuffledParent = shuffled.split("/").slice(0, -1).join("/");
      expect(shuffledParent).toBe(parent === "" ? "" : plan.directories[parent]);
    }
  });

  it("is reproducible from its seed, whatever the input order, and differs between seeds", () => {
    const a = planShuffle(DJANGO, { seed: 11 });
    expect(planShuffle([...DJANGO].reverse(), { seed: 11 })).toEqual(a);
    expect(
      planShuffle(
        DJANGO.map((path) => `./${path}`),
        { seed: 11 },
      ),
    ).toEqual(a);
    const b = planShuffle(DJANGO, { seed: 12 });
    expect(b.files).not.toEqual(a.files);
    expect(b.seed).toBe(12);
  });

  it("gives names that differ only in case two distinct lower-case names (no clash on case-insensitive file systems)", () => {
    const plan = planShuffle(["docs/README.txt", "docs/readme.txt", "Pkg/a.py", "pkg/a.py"], { seed: 5 });
    const shuffled = Object.values(plan.files);
    expect(new Set(shuffled.map((path) => path.toLowerCase())).size).toBe(4);
    expect(plan.directories.Pkg?.toLowerCase()).not.toBe(plan.directories.pkg?.toLowerCase());
    for (const path of [...shuffled, ...Object.values(plan.directories)]) expect(path).toBe(path.toLowerCase());
  });

  it("refuses duplicate paths, a path that is both a file and a folder, and paths leaving the repository", () => {
    expect(() => planShuffle(["a.py", "./a.py"], { seed: 1 })).toThrow(/listed twice/);
    expect(() => planShuffle(["a", "a/b.py"], { seed: 1 })).toThrow(/also holds other entries/);
    expect(() => planShuffle(["../x.py"], { seed: 1 })).toThrow(/leaves the repository/);
    expect(() => planShuffle(["a.py"], { seed: 1.5 })).toThrow(/integer seed/);
  });

  it("renames extra (empty) folders too", () => {
    const plan = planShuffle(["a/b.py"], { seed: 1, directories: ["empty/inner", "a"] });
    expect(Object.keys(plan.directories).sort()).toEqual(["a", "empty", "empty/inner"]);
  });

  it("property: any tree maps one-to-one, keeps extensions and round-trips through mapPath / unmapPath", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,8}$/);
    const tree = fc.uniqueArray(
      fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/")),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(tree, fc.integer(), (paths, seed) => {
        // Drop paths that are a folder of another path.
        const files = paths.filter((path) => !paths.some((other) => other.startsWith(`${path}/`)));
        const plan = planShuffle(files, { seed });
        const values = Object.values(plan.files);
        expect(new Set(values.map((value) => value.toLowerCase())).size).toBe(files.length);
        for (const file of files) {
          const shuffled = mapPath(plan, file) as string;
          expect(splitFileName(lastSegment(shuffled)).extension).toBe(
            lastSegment(file).startsWith(".") ? "" : splitFileName(lastSegment(file)).extension,
          );
          expect(unmapPath(plan, shuffled)).toBe(file);
        }
        for (const folder of Object.keys(plan.directories))
          expect(unmapPath(plan, mapPath(plan, folder) as string)).toBe(folder);
      }),
      { numRuns: 200 },
    );
  });
});

describe("splitFileName", () => {
  it.each([
    ["query.py", "query", ".py"],
    ["archive.tar.gz", "archive", ".tar.gz"],
    ["common-passwords.txt.gz", "common-passwords", ".txt.gz"],
    ["jquery.min.js", "jquery", ".min.js"],
    ["jquery-3.5.1.js", "jquery-3.5.1", ".js"],
    ["manage.py-tpl", "manage", ".py-tpl"],
    ["_speedups.cpython-311-x86_64-linux-gnu.so", "_speedups", ".cpython-311-x86_64-linux-gnu.so"],
    ["LICENSE", "LICENSE", ""],
    [".gitignore", ".gitignore", ""],
    ["a.b.c.d.e", "a.b", ".c.d.e"],
    ["trailing.", "trailing.", ""],
  ])("%s → %s + %s", (name, stem, extension) => {
    expect(splitFileName(name)).toEqual({ stem, extension });
  });
});

describe("mapPath / unmapPath", () => {
  const plan = planShuffle(DJANGO, { seed: 9 });
  it("maps files and folders exactly, normalizing ./ and backslashes, and knows nothing else", () => {
    const query = plan.files["django/db/models/query.py"] as string;
    expect(mapPath(plan, "./django/db/models/query.py")).toBe(query);
    expect(mapPath(plan, "django\\db\\models\\query.py")).toBe(query);
    expect(mapPath(plan, "django/db/models")).toBe(plan.directories["django/db/models"]);
    expect(unmapPath(plan, query)).toBe("django/db/models/query.py");
    expect(mapPath(plan, "django/db/models/missing.py")).toBeUndefined();
    expect(unmapPath(plan, "django/db/models/query.py")).toBeUndefined();
    expect(mapPath(planShuffle(["constructor", "__proto__/x.py"], { seed: 1 }), "toString")).toBeUndefined();
  });
});

describe("parseShuffleMapping", () => {
  const plan = planShuffle(DJANGO, { seed: 9 });
  it("reads back what planShuffle wrote (through JSON)", () => {
    expect(parseShuffleMapping(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
  });
  it("refuses a mapping that is not one-to-one, or of another version", () => {
    const broken: ShuffleMapping = { ...plan, files: { ...plan.files, "extra.py": plan.files["setup.py"] as string } };
    expect(() => parseShuffleMapping(broken)).toThrow(/both map to/);
    // Paths that climb or are absolute, and entries outside their folder's mapping (issue 12 sweep).
    const climbing = { ...plan, files: { ...plan.files, "setup.py": "../../escape.py" } };
    expect(() => parseShuffleMapping(climbing)).toThrow(
      'not a shuffle mapping at files.setup.py: the shuffled path "../../escape.py" is not a normalized relative path',
    );
    expect(() => parseShuffleMapping({ ...plan, files: { ...plan.files, "setup.py": "/etc/passwd" } })).toThrow(
      /the shuffled path "\/etc\/passwd" is absolute/,
    );
    const [nested] = Object.keys(plan.files).filter((path) => path.includes("/"));
    expect(nested).toBeDefined();
    expect(() =>
      parseShuffleMapping({ ...plan, files: { ...plan.files, [nested as string]: "elsewhere.py" } }),
    ).toThrow(/is not inside/);
    expect(plan.schemaVersion).toBe(3);
    expect(() => parseShuffleMapping({ ...plan, schemaVersion: 2 })).toThrow(
      "a shuffle mapping of schemaVersion 2 cannot be used: this loclab reads version 3 (names are now drawn another way); shuffle the checkout again with this version",
    );
    expect(() => parseShuffleMapping({ ...plan, schemaVersion: 4 })).toThrow(
      "a shuffle mapping of schemaVersion 4 cannot be used: this loclab reads version 3 (written by a newer loclab)",
    );
    expect(() => parseShuffleMapping({ ...plan, schemaVersion: "3" })).toThrow(
      /not a shuffle mapping at schemaVersion/,
    );
  });
});

describe("names across commits", () => {
  it("an entry's name does not depend on the other entries: a file added or removed renames nothing else", () => {
    const before = ["a/x.py", "a/y.py", "b/z.py", "m.py"];
    const after = ["a/w.py", "a/x.py", "b/z.py", "c/new.py", "m.py"];
    const one = planShuffle(before, { seed: 5 });
    const two = planShuffle(after, { seed: 5 });
    for (const path of ["a/x.py", "b/z.py", "m.py"]) expect(two.files[path]).toBe(one.files[path]);
    for (const folder of ["a", "b"]) expect(two.directories[folder]).toBe(one.directories[folder]);
    // Another seed, other names.
    expect(planShuffle(before, { seed: 6 }).files["m.py"]).not.toBe(one.files["m.py"]);
  });
});

describe("hidden names", () => {
  const FLASK = [
    "src/flask/__init__.py",
    "src/flask/app.py",
    ".flaskenv",
    ".gitignore",
    ".github/workflows/tests.yaml",
    ".pylint_primer_tests/x.txt",
    "setup.py",
  ];

  it("the repository's top-level package names (root or src/ layout)", async () => {
    const { topLevelPackageNames } = await import("../src/index.js");
    expect(topLevelPackageNames(FLASK)).toEqual(["flask"]);
    // Generic names (tests, docs, tools) say nothing about the project.
    expect(
      topLevelPackageNames([
        "_pytest/__init__.py",
        "pytest/__init__.py",
        "conftest.py",
        "six.py",
        "docs/conf.py",
        "tests/__init__.py",
        "tools.py",
      ]),
    ).toEqual(["_pytest", "pytest", "six"]);
  });

  it("are kept unless asked; renamed ones keep their dot", () => {
    const kept = planShuffle(FLASK, { seed: 1 });
    expect(kept.files[".flaskenv"]).toBe(".flaskenv");
    const renamed = planShuffle(FLASK, { seed: 1, renameHidden: (name) => name.includes("flask") });
    expect(renamed.files[".flaskenv"]).toMatch(/^\.m_[a-z0-9]{6}$/);
    expect(renamed.files[".gitignore"]).toBe(".gitignore");
    expect(renamed.directories[".github"]).toBe(".github");
  });

  it("planRepositoryShuffle renames by default those that name a top-level package", async () => {
    const { planRepositoryShuffle } = await import("../src/index.js");
    const { loadPythonParser } = await import("@loclab/python");
    const files = [...FLASK, ".pylint_primer_tests/y.txt"];
    const tree = {
      files,
      directories: [],
      symlinks: [],
      pythonSources: new Map(files.filter((f) => f.endsWith(".py")).map((f) => [f, new Uint8Array()])),
    };
    const plan = planRepositoryShuffle(tree, { seed: 3 }, await loadPythonParser());
    expect(plan.mapping.files[".flaskenv"]).toMatch(/^\.m_/);
    expect(plan.mapping.files[".gitignore"]).toBe(".gitignore");
    expect(plan.mapping.directories[".github"]).toBe(".github");
    // "pylint" is not this repository's package: kept.
    expect(plan.mapping.directories[".pylint_primer_tests"]).toBe(".pylint_primer_tests");
    const all = planRepositoryShuffle(tree, { seed: 3, hiddenNames: "all" }, await loadPythonParser());
    expect(all.mapping.files[".gitignore"]).toMatch(/^\.m_/);
    const none = planRepositoryShuffle(tree, { seed: 3, hiddenNames: "keep" }, await loadPythonParser());
    expect(none.mapping.files[".flaskenv"]).toBe(".flaskenv");
  });
});
