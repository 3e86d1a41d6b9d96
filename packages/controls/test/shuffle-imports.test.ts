import { describe, expect, it } from "vitest";
import { loadPythonParser, PythonModuleIndex, pythonSourceFacts } from "@loclab/python";
import { rewriteInMemory } from "./shuffle-helpers.js";

// Import rewriting for repository shuffling (docs/definitions.md §4): each import form on a small
// in-memory repository. `name(path)` is the shuffled name of a folder or module file.

const PKG = {
  "pkg/__init__.py": "from .version import version\n__all__ = ['core']\n",
  "pkg/version.py": "version = '1.0'\n",
  "pkg/core.py": "def engine():\n    return 1\n",
  "pkg/sub/__init__.py": "",
  "pkg/sub/mod.py": "def f():\n    return 2\n",
  "pkg/sub/leaf.py": "",
  "pkg2/__init__.py": "",
  "pkg2/thing.py": "thing = 3\n",
  "README.md": "pkg/core.py is the core\n",
};

async function rewrite(
  extra: Record<string, string>,
  options: { rewriteDottedStrings?: boolean; keepBindings?: boolean } = {},
) {
  return rewriteInMemory({ ...PKG, ...extra }, options);
}

describe("import forms (absolute)", () => {
  it("import a.b.c: every component renamed, and the attribute chains that use the bound root", async () => {
    const { sources, name } = await rewrite({ "app.py": "import pkg.sub.mod\n\nprint(pkg.sub.mod.f(), pkg.core)\n" });
    const [p, s, m] = [name("pkg"), name("pkg/sub"), name("pkg/sub/mod.py")];
    expect(sources.get("app.py")).toBe(
      `import ${p}.${s}.${m}\n\nprint(${p}.${s}.${m}.f(), ${p}.${name("pkg/core.py")})\n`,
    );
  });

  it("import a.b as c: the alias is kept; import a: `as a` is added so the name stays bound", async () => {
    const { sources, name } = await rewrite({
      "app.py": "import pkg.sub as s, pkg2\nimport os.path\ns.mod.f()\npkg2.thing\n",
    });
    expect(sources.get("app.py")).toBe(
      `import ${name("pkg")}.${name("pkg/sub")} as s, ${name("pkg2")} as pkg2\nimport os.path\ns.${name("pkg/sub/mod.py")}.f()\npkg2.${name("pkg2/thing.py")}\n`,
    );
  });

  it("from a.b import c, d as e: the module renamed; submodule names renamed with `as`, attributes kept", async () => {
    const source =
      "from pkg.sub import mod, leaf as l\nfrom pkg.core import engine\nfrom pkg import (\n    core,  # the core\n    sub,\n)\nmod.f()\n";
    const { sources, name, stats } = await rewrite({ "app.py": source });
    const [p, s] = [name("pkg"), name("pkg/sub")];
    expect(sources.get("app.py")).toBe(
      `from ${p}.${s} import ${name("pkg/sub/mod.py")} as mod, ${name("pkg/sub/leaf.py")} as l\n` +
        `from ${p}.${name("pkg/core.py")} import engine\n` +
        `from ${p} import (\n    ${name("pkg/core.py")} as core,  # the core\n    ${s} as sub,\n)\nmod.f()\n`,
    );
    expect(stats.get("app.py")).toMatchObject({
      statements: 3,
      statementsRewritten: 3,
      inRepository: 3,
      submoduleNamesRenamed: 4,
    });
  });

  it("keepBindings off: no `as <original>` is added (the names are not bound any more)", async () => {
    const { sources, name } = await rewrite(
      { "app.py": "import pkg\nfrom pkg.sub import mod, leaf as l\n" },
      { keepBindings: false },
    );
    expect(sources.get("app.py")).toBe(
      `import ${name("pkg")}\nfrom ${name("pkg")}.${name("pkg/sub")} import ${name("pkg/sub/mod.py")}, ${name("pkg/sub/leaf.py")} as l\n`,
    );
  });

  it("leaves the standard library and third-party imports alone", async () => {
    const source = "import os, sys\nimport numpy as np\nfrom json import loads\nfrom __future__ import annotations\n";
    const { sources, stats } = await rewrite({ "app.py": source });
    expect(sources.get("app.py")).toBe(source);
    expect(stats.get("app.py")).toMatchObject({ statements: 3, inRepository: 0, unresolvedInRepository: 0 });
  });

  it("keeps a name the package's __init__ binds to something else (requests' __version__ case)", async () => {
    // pkg/__init__.py does `from .version import version`: `from pkg import version` is the string.
    const { sources, name } = await rewrite({ "app.py": "from pkg import version, core\n" });
    expect(sources.get("app.py")).toBe(`from ${name("pkg")} import version, ${name("pkg/core.py")} as core\n`);
    expect(sources.get("pkg/__init__.py")).toBe(`from .${name("pkg/version.py")} import version\n__all__ = ['core']\n`);
  });

  it("an import of a module absent from the tree: the components that exist are renamed, the rest left, and counted", async () => {
    const source =
      "from pkg.missing import x\nimport pkg.nothere\nfrom pkg.sub.gone import y\nfrom .pkg.sub.gone import z\npkg.nothere.f()\nimport pkg.nothere as n\n";
    const { sources, stats, name } = await rewrite({ "app.py": source });
    const [p, s] = [name("pkg"), name("pkg/sub")];
    // The repository's own package names do not survive (issue 15: 41 such imports in scikit-learn told the original name).
    expect(sources.get("app.py")).toBe(
      `from ${p}.missing import x\nimport ${p}.nothere\nfrom ${p}.${s}.gone import y\nfrom .${p}.${s}.gone import z\n${p}.nothere.f()\nimport ${p}.nothere as n\n`,
    );
    expect(stats.get("app.py")).toMatchObject({
      unresolvedInRepository: 5,
      prefixRenamed: 5,
      inRepository: 0,
      statementsRewritten: 5,
    });
  });
});

describe("import forms (relative)", () => {
  it("from . import x, from .. import y, from ..pkg2.thing import z, from .mod import *", async () => {
    const source =
      "from . import mod, leaf\nfrom .. import core\nfrom ..core import engine\nfrom .mod import *\nfrom ... import pkg2\n";
    const { sources, name, stats } = await rewrite({ "pkg/sub/user.py": source });
    expect(sources.get("pkg/sub/user.py")).toBe(
      `from . import ${name("pkg/sub/mod.py")} as mod, ${name("pkg/sub/leaf.py")} as leaf\n` +
        `from .. import ${name("pkg/core.py")} as core\n` +
        `from ..${name("pkg/core.py")} import engine\n` +
        `from .${name("pkg/sub/mod.py")} import *\n` +
        `from ... import ${name("pkg2")} as pkg2\n`,
    );
    expect(stats.get("pkg/sub/user.py")).toMatchObject({ inRepository: 5, unresolvedInRepository: 0 });
  });

  it("counts a relative import above the root or to a missing module as unresolved", async () => {
    const { sources, stats } = await rewrite({ "top.py": "from .. import x\nfrom .nothere import y\n" });
    expect(sources.get("top.py")).toBe("from .. import x\nfrom .nothere import y\n");
    expect(stats.get("top.py")?.unresolvedInRepository).toBe(2);
  });

  it("renames `from . import x` inside the package's own __init__ even though it binds x", async () => {
    const { sources, name } = await rewrite({ "pkg3/__init__.py": "from . import a\n", "pkg3/a.py": "" });
    expect(sources.get("pkg3/__init__.py")).toBe(`from . import ${name("pkg3/a.py")} as a\n`);
  });
});

describe("import roots", () => {
  it("src/ layout: absolute imports resolve under src/", async () => {
    const { sources, name } = await rewriteInMemory({
      "src/lib/__init__.py": "",
      "src/lib/x.py": "from lib import y\nimport lib.y\n",
      "src/lib/y.py": "",
      "tests/test_x.py": "from lib.x import y\n",
    });
    expect(sources.get("src/lib/x.py")).toBe(
      `from ${name("src/lib")} import ${name("src/lib/y.py")} as y\nimport ${name("src/lib")}.${name("src/lib/y.py")}\n`,
    );
    expect(sources.get("tests/test_x.py")).toBe(`from ${name("src/lib")}.${name("src/lib/x.py")} import y\n`);
  });

  it("a test folder that is not a package is its own import root (script / pytest prepend)", async () => {
    const { sources, name } = await rewriteInMemory({
      "tests/helpers.py": "",
      "tests/admin_views/__init__.py": "",
      "tests/admin_views/models.py": "",
      "tests/admin_views/tests.py": "import helpers\nfrom admin_views.models import M\nfrom .models import N\n",
    });
    expect(sources.get("tests/admin_views/tests.py")).toBe(
      `import ${name("tests/helpers.py")} as helpers\nfrom ${name("tests/admin_views")}.${name("tests/admin_views/models.py")} import M\nfrom .${name("tests/admin_views/models.py")} import N\n`,
    );
  });

  it("PythonModuleIndex: package beats module, module beats namespace folder", () => {
    const index = new PythonModuleIndex(["a/__init__.py", "a.py", "b.py", "b/x.py", "c/x.py", "c/static/s.css"]);
    expect(index.child("", "a")).toEqual({ kind: "package", path: "a", init: "a/__init__.py" });
    expect(index.child("", "b")).toEqual({ kind: "module", path: "b.py" });
    expect(index.child("", "c")).toEqual({ kind: "namespace", path: "c" });
    expect(index.child("c", "static")).toBeUndefined();
    expect(index.resolveAbsolute("c/x.py", ["c", "x"])).toEqual([
      { kind: "namespace", path: "c" },
      { kind: "module", path: "c/x.py" },
    ]);
  });
});

describe("code beyond import statements", () => {
  it("attribute chains are rewritten only in the scope the import binds in", async () => {
    const source = [
      "import pkg",
      "def f():",
      "    import pkg.sub.mod",
      "    return pkg.sub.mod.f()",
      "def g():",
      "    return pkg.sub.mod.f()",
      "",
    ].join("\n");
    const { sources, name } = await rewrite({ "app.py": source });
    const [p, s, m] = [name("pkg"), name("pkg/sub"), name("pkg/sub/mod.py")];
    expect(sources.get("app.py")).toBe(
      [
        `import ${p} as pkg`,
        "def f():",
        `    import ${p}.${s}.${m}`,
        `    return ${p}.${s}.${m}.f()`,
        "def g():",
        `    return pkg.${s}.${m}.f()`,
        "",
      ].join("\n"),
    );
  });

  it("dotted strings naming repository modules are counted, not rewritten; rewritten on request", async () => {
    const source =
      'import importlib\nm = importlib.import_module("pkg.sub.mod")\nAPPS = ["pkg.core", "pkg2"]\npatch("pkg.core.engine")\nx = "os.path"\n';
    const plain = await rewrite({ "app.py": source });
    expect(plain.sources.get("app.py")).toBe(source);
    expect(plain.stats.get("app.py")?.dynamicReferences).toBe(3);
    const { sources, name, stats } = await rewrite({ "app.py": source }, { rewriteDottedStrings: true });
    expect(sources.get("app.py")).toBe(
      `import importlib\nm = importlib.import_module("${name("pkg")}.${name("pkg/sub")}.${name("pkg/sub/mod.py")}")\n` +
        `APPS = ["${name("pkg")}.${name("pkg/core.py")}", "pkg2"]\npatch("${name("pkg")}.${name("pkg/core.py")}.engine")\nx = "os.path"\n`,
    );
    expect(stats.get("app.py")).toMatchObject({ dynamicReferences: 3, dynamicReferencesRewritten: 3 });
  });

  it("keeps offsets right after non-ASCII text (UTF-16 offsets)", async () => {
    const { sources, name } = await rewrite({ "app.py": "s = 'é😀 ü'  # ✓\nfrom pkg import core\n" });
    expect(sources.get("app.py")).toBe(`s = 'é😀 ü'  # ✓\nfrom ${name("pkg")} import ${name("pkg/core.py")} as core\n`);
  });
});

describe("a file that does not parse", () => {
  it("gets the imports outside the error rewritten; an import holding an error is left and counted", async () => {
    const source =
      "from pkg import core\ndef broken(:\n    from pkg import sub\nfrom pkg.sub import mod leaf\nimport pkg2.thing\n";
    const python = await loadPythonParser();
    const facts = pythonSourceFacts(source, python);
    expect(facts.hasError).toBe(true);
    expect(facts.imports.map((fact) => [fact.line, fact.inError])).toEqual([
      [1, false],
      [3, false],
      [4, true],
      [5, false],
    ]);
    const { sources, name, stats } = await rewrite({ "bad.py": source });
    expect(sources.get("bad.py")).toBe(
      `from ${name("pkg")} import ${name("pkg/core.py")} as core\ndef broken(:\n    from ${name("pkg")} import ${name("pkg/sub")} as sub\n` +
        `from pkg.sub import mod leaf\nimport ${name("pkg2")}.${name("pkg2/thing.py")}\n`,
    );
    expect(stats.get("bad.py")).toMatchObject({ statements: 3, statementsRewritten: 3, skippedInErrors: 1 });
  });
});
