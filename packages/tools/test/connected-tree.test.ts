import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPythonImportParser, PythonModuleIndex, pythonImports } from "@loclab/python";
import { type ConnectedTree, connectedTree, openWorkspace, renderConnectedTree } from "../src/index.js";
import { findPython, temporaryDir, writeTree } from "./helpers.js";
import { writeSampleRepo } from "./sample-repo.js";

const root = writeSampleRepo();
const python = findPython();
const REFERENCE = join(import.meta.dirname, "reference", "python_import_graph.py");

const shown = async (
  workspace: Awaited<ReturnType<typeof openWorkspace>>,
  input: Parameters<typeof connectedTree>[1],
) => {
  const result = await connectedTree(workspace, input);
  if (result.status !== "shown") throw new Error(`expected a shown tree, got ${result.status}`);
  return result as ConnectedTree;
};

describe("Python imports from tree-sitter", () => {
  it("reads every form of import, wherever it stands, and nothing in strings or comments", async () => {
    const parser = await loadPythonImportParser();
    const source = [
      "import a.b as c, d",
      "from . import x",
      "from ...pkg.mod import (y as z,",
      "    w)",
      "from .m import *",
      "from __future__ import annotations",
      "# import commented",
      "s = 'import in_string'",
      "def f():",
      "    if True:",
      "        from q import r",
      "try:",
      "    import e",
      "except ImportError:",
      "    e = None",
      "class K:",
      "    import inside_class",
    ].join("\n");
    expect(pythonImports(source, parser)).toEqual({
      hasError: false,
      imports: [
        { form: "import", line: 1, module: ["a", "b"] },
        { form: "import", line: 1, module: ["d"] },
        { form: "from", line: 2, level: 1, module: [], names: ["x"], wildcard: false },
        { form: "from", line: 3, level: 3, module: ["pkg", "mod"], names: ["y", "w"], wildcard: false },
        { form: "from", line: 5, level: 1, module: ["m"], names: [], wildcard: true },
        { form: "from", line: 6, level: 0, module: ["__future__"], names: ["annotations"], wildcard: false },
        { form: "from", line: 11, level: 0, module: ["q"], names: ["r"], wildcard: false },
        { form: "import", line: 13, module: ["e"] },
        { form: "import", line: 17, module: ["inside_class"] },
      ],
    });
  });

  it("keeps the imports outside a syntax error and says there was one", async () => {
    const parser = await loadPythonImportParser();
    const result = pythonImports("import ok\ndef broken(:\n    pass\nfrom x import y\n", parser);
    expect(result.hasError).toBe(true);
    expect(result.imports.map((statement) => statement.module.join("."))).toContain("ok");
  });
});

describe("import resolution", () => {
  const files = [
    "setup.py",
    "src/pkg/__init__.py",
    "src/pkg/a.py",
    "src/pkg/sub/__init__.py",
    "src/pkg/sub/b.py",
    "src/pkg/stubbed.pyi",
    "src/pkg/fast.pyx",
    "src/pkg/fast.py",
    "src/nspkg/mod.py",
    "tests/helpers/__init__.py",
    "tests/test_a.py",
    "tools/script.py",
    "tools/lib.py",
  ];
  const resolver = new PythonModuleIndex(files);
  const resolve = (file: string, statement: Parameters<PythonModuleIndex["resolve"]>[1]) =>
    resolver.resolve(file, statement);
  const imp = (module: string) => ({ form: "import" as const, line: 1, module: module.split(".") });
  const from = (level: number, module: string, names: string[], wildcard = false) => ({
    form: "from" as const,
    line: 1,
    level,
    module: module === "" ? [] : module.split("."),
    names,
    wildcard,
  });

  it("absolute: src layout, packages via __init__.py, deepest file, prefers .py to .pyi to .pyx", () => {
    expect(resolve("setup.py", imp("pkg"))).toEqual({ targets: ["src/pkg/__init__.py"], external: [] });
    expect(resolve("setup.py", imp("pkg.sub.b"))).toEqual({ targets: ["src/pkg/sub/b.py"], external: [] });
    expect(resolve("setup.py", imp("pkg.sub.gone"))).toEqual({ targets: ["src/pkg/sub/__init__.py"], external: [] });
    expect(resolve("setup.py", imp("pkg.fast"))).toEqual({ targets: ["src/pkg/fast.py"], external: [] });
    expect(resolve("setup.py", imp("pkg.stubbed"))).toEqual({ targets: ["src/pkg/stubbed.pyi"], external: [] });
    expect(resolve("setup.py", imp("os.path"))).toEqual({ targets: [], external: ["os.path"] });
    expect(resolve("setup.py", imp("nspkg.mod"))).toEqual({ targets: ["src/nspkg/mod.py"], external: [] });
    expect(resolve("setup.py", imp("nspkg"))).toEqual({ targets: [], external: ["nspkg"] }); // a namespace folder has no file
  });

  it("from-imports: a submodule when there is one, else the module that defines the name", () => {
    expect(resolve("setup.py", from(0, "pkg.sub", ["b", "something"]))).toEqual({
      targets: ["src/pkg/sub/b.py", "src/pkg/sub/__init__.py"],
      external: [],
    });
    expect(resolve("setup.py", from(0, "pkg.a", ["x"]))).toEqual({ targets: ["src/pkg/a.py"], external: [] });
    expect(resolve("setup.py", from(0, "pkg.sub", [], true))).toEqual({
      targets: ["src/pkg/sub/__init__.py"],
      external: [],
    });
    expect(resolve("setup.py", from(0, "pkg.gone", ["x"]))).toEqual({ targets: ["src/pkg/__init__.py"], external: [] });
  });

  it("relative: from . import x, dots climbing, above the root is external, self-imports dropped", () => {
    expect(resolve("src/pkg/sub/b.py", from(1, "", ["b"]))).toEqual({ targets: [], external: [] }); // itself
    expect(resolve("src/pkg/sub/b.py", from(1, "", ["other"]))).toEqual({
      targets: ["src/pkg/sub/__init__.py"],
      external: [],
    });
    expect(resolve("src/pkg/sub/b.py", from(2, "", ["a"]))).toEqual({ targets: ["src/pkg/a.py"], external: [] });
    expect(resolve("src/pkg/sub/b.py", from(2, "a", ["f"]))).toEqual({ targets: ["src/pkg/a.py"], external: [] });
    expect(resolve("src/pkg/sub/b.py", from(5, "", ["x"]))).toEqual({ targets: [], external: [".....x"] });
    expect(resolve("src/pkg/sub/b.py", from(1, "missing", ["x"]))).toEqual({
      targets: ["src/pkg/sub/__init__.py"],
      external: [],
    });
    expect(resolve("src/pkg/__init__.py", from(1, "", ["helper"]))).toEqual({ targets: [], external: [] }); // defined in itself
  });

  it("a file's own root comes first (tests/ and scripts run with their folder on sys.path)", () => {
    expect(resolve("tests/test_a.py", imp("helpers"))).toEqual({
      targets: ["tests/helpers/__init__.py"],
      external: [],
    });
    expect(resolve("tests/test_a.py", imp("pkg.a"))).toEqual({ targets: ["src/pkg/a.py"], external: [] });
    expect(resolve("tools/script.py", from(0, "lib", ["x"]))).toEqual({ targets: ["tools/lib.py"], external: [] });
    expect(resolve("setup.py", imp("lib"))).toEqual({ targets: [], external: ["lib"] });
  });

  it("a checkout whose root is itself a package names it by the root folder's name", () => {
    const django = new PythonModuleIndex(
      ["__init__.py", "db/__init__.py", "db/models/__init__.py", "db/models/query.py", "utils/text.py"],
      { rootPackage: "django" },
    );
    expect(django.resolve("db/models/query.py", from(0, "django.utils.text", ["slugify"]))).toEqual({
      targets: ["utils/text.py"],
      external: [],
    });
    expect(django.resolve("db/models/query.py", imp("django"))).toEqual({ targets: ["__init__.py"], external: [] });
    expect(django.resolve("db/models/query.py", from(3, "utils", ["text"]))).toEqual({
      targets: ["utils/text.py"],
      external: [],
    });
    expect(django.resolve("db/models/query.py", imp("utils"))).toEqual({ targets: [], external: ["utils"] });
    expect(django.resolve("db/models/query.py", from(4, "django", ["x"]))).toEqual({
      targets: ["__init__.py"],
      external: [],
    });
  });
});

describe("connected_tree", () => {
  it("lists what a file imports and what imports it, with external imports", async () => {
    const result = await shown(await openWorkspace({ root }), { path: "src/app/core.py" });
    expect(result).toMatchObject({
      path: "src/app/core.py",
      rule: "exact",
      imports: [
        { path: "src/app/config.py", depth: 1 },
        { path: "src/app/models.py", depth: 1 },
        { path: "src/app/utils/helpers.py", depth: 1 },
        { path: "src/app/utils/text.py", depth: 1 },
      ],
      importedBy: [
        { path: "src/app/Views.py", depth: 1 },
        { path: "src/app/__init__.py", depth: 1 },
        { path: "tests/test_core.py", depth: 1 },
      ],
      external: ["..outside", "json", "os"],
      truncated: { imports: 0, importedBy: 0 },
    });
  });

  it("follows imports to a depth, each file once under the first file that reaches it", async () => {
    const result = await shown(await openWorkspace({ root }), { path: "core.py", depth: 2 });
    expect(renderConnectedTree(result)).toBe(
      [
        'connected_tree src/app/core.py (the only file whose path ends with "core.py") (depth 2)',
        "imports (6 files):",
        "  src/app/config.py",
        "  src/app/models.py",
        "    src/app/utils/__init__.py",
        "  src/app/utils/helpers.py",
        "    src/app/__init__.py",
        "  src/app/utils/text.py",
        "imported by (4 files):",
        "  src/app/Views.py",
        "  src/app/__init__.py",
        "    src/app/utils/helpers.py",
        "  tests/test_core.py",
        "external (not in the repository): ..outside, json, os",
        "",
      ].join("\n"),
    );
  });

  it("gives the same answer before and after the complete graph is built", async () => {
    const lazy = await openWorkspace({ root });
    const full = await openWorkspace({ root });
    await full.importGraph();
    for (const path of [
      "src/app/core.py",
      "src/app/utils/__init__.py",
      "src/app/utils/text.py",
      "src/app/__init__.py",
      "setup.py",
      "links/inside.py",
    ]) {
      for (const depth of [1, 3])
        expect(await connectedTree(lazy, { path, depth })).toEqual(await connectedTree(full, { path, depth }));
    }
  });

  it("caps each side and says how many were cut; one side on request", async () => {
    const workspace = await openWorkspace({ root, limits: { connectedMaxFiles: 2 } });
    const result = await shown(workspace, { path: "src/app/core.py", direction: "imports" });
    expect(result.imports).toHaveLength(2);
    expect(result.importedBy).toEqual([]);
    expect(result.truncated).toEqual({ imports: 2, importedBy: 0 });
    expect(renderConnectedTree(result)).toContain("[2 more files not listed: use a smaller depth]");
  });

  it("refuses files that are not Python, and lists candidates for an ambiguous path", async () => {
    const workspace = await openWorkspace({ root });
    await expect(connectedTree(workspace, { path: "README.md" })).rejects.toMatchObject({ code: "not-python" });
    expect(await connectedTree(workspace, { path: "__init__.py" })).toMatchObject({
      status: "ambiguous",
      candidates: ["src/app/__init__.py", "src/app/utils/__init__.py"],
    });
    await expect(connectedTree(workspace, { path: "setup.py", depth: 6 })).rejects.toThrow(
      "depth must be an integer from 1 to 5",
    );
  });
});

describe.skipIf(!python)(
  `agreement with Python's ast module (reference: test/reference/python_import_graph.py)${python ? "" : " — skipped: no python3"}`,
  () => {
    const compare = async (tree: string) => {
      const reference = JSON.parse(
        execFileSync(python as string, [REFERENCE, tree], { encoding: "utf8", maxBuffer: 1 << 30 }),
      ) as {
        files: Record<string, { targets: string[]; external: string[] }>;
        syntaxErrors: string[];
      };
      const graph = await (await openWorkspace({ root: tree })).importGraph();
      for (const file of graph.files.filter((path) => path.endsWith(".py") && !reference.syntaxErrors.includes(path))) {
        const expected = reference.files[file] ?? { targets: [], external: [] };
        expect({ file, targets: graph.importsOf(file), external: [...graph.externalOf(file)] }).toEqual({
          file,
          targets: [...expected.targets].sort(),
          external: [...expected.external].sort(),
        });
      }
      return graph;
    };

    it("on the sample repository (src layout, tests folder, relative imports, symlinked module)", async () => {
      const graph = await compare(root);
      expect(graph.stats.edges).toBeGreaterThan(10);
    });

    it("on a checkout whose root is a package", async () => {
      const tree = writeTree(join(temporaryDir(), "mypkg"), {
        "__init__.py": "from .core import thing\nfrom mypkg.util import helper\n",
        "core.py": "from . import util\nfrom .. import nothing\nimport mypkg.sub.deep\nfrom mypkg import *\n",
        "util.py": "import mypkg\nfrom mypkg.core import thing as t\n",
        "sub/__init__.py": "",
        "sub/deep.py": "from ...core import x\nfrom ..util import helper\nfrom . import sibling\n",
        "scripts/run.py": "import mypkg.core\nimport util\n",
      });
      await compare(tree);
    });
  },
);
