import { existsSync } from "node:fs";
import { mkdir, readFile, readlink, realpath, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  parseShuffleMapping,
  planRepositoryShuffle,
  planShuffle,
  SHUFFLE_KEEP_NAMES,
  type ShuffleMapping,
} from "@loclab/controls";
import { loadPythonParser } from "@loclab/python";
import { shuffleRepository, type ShuffleReport } from "@loclab/tools";
import { SYSTEM_PYTHON, temporaryFolder, treeCensus, treeDigest, writeTree } from "./shuffle/tree-helpers.js";

// shuffleRepository (docs/definitions.md §4) on a fixture checkout written to a temporary folder:
// src/ layout, a tests/ folder that is its own import root, a non-Python file named in the
// docs, a file that does not parse, one that is not UTF-8, names differing only in case,
// and symbolic links (inside, outside, dangling, and two kinds of loop).

const FIXTURE: Record<string, string | { link: string }> = {
  "src/shop/__init__.py": "from .cart import Cart\n",
  "src/shop/__main__.py": "from shop.cart import Cart\nprint(Cart().total())\n",
  "src/shop/cart.py":
    "from shop import pricing\nfrom shop.pricing import price\n\n\nclass Cart:\n    def total(self):\n        return pricing.price(2) + price(3)\n",
  "src/shop/pricing.py": "def price(x):\n    return 10 * x\n",
  "src/shop/py.typed": "",
  "tests/conftest.py": "import shop\n",
  "tests/helpers.py": "def make():\n    return 1\n",
  "tests/test_cart.py":
    "from shop.cart import Cart\nfrom helpers import make\n\n\ndef test_total():\n    assert Cart().total() == 50 and make() == 1\n",
  "docs/index.md": "Configure with `config.yaml`; see CHANGELOG.md and cart.py.\n",
  "config.yaml": "name: shop\n",
  "CHANGELOG.md": "1.0: first\n",
  "notes/Readme.txt": "upper\n",
  "notes/readme.txt": "lower\n",
  "bad/broken.py": "import shop.cart\ndef f(:\n    pass\n",
  ".gitignore": "*.pyc\n",
  ".git/HEAD": "ref: refs/heads/main\n",
  "links/cart.py": { link: "../src/shop/cart.py" },
  "links/shop": { link: "../src/shop" },
  "links/up": { link: ".." },
  "links/a": { link: "b" },
  "links/b": { link: "a" },
  "links/hostname": { link: "/etc/hostname" },
  "links/nothing": { link: "missing.txt" },
};

let root: string;
let cleanup: () => Promise<void>;
let repo: string;
let report: ShuffleReport;
let mapping: ShuffleMapping;
let before: Map<string, string>;
const out = () => join(root, "out");
const shuffled = (path: string) => join(out(), mapping.files[path] ?? (mapping.directories[path] as string));

beforeAll(async () => {
  ({ path: root, cleanup } = await temporaryFolder("shuffle-fixture"));
  repo = join(root, "repo");
  await writeTree(repo, FIXTURE);
  await writeFile(
    join(repo, "latin1.py"),
    Buffer.from("# -*- coding: latin-1 -*-\nname = '\xe9'\nimport shop\n", "latin1"),
  );
  await writeFile(join(repo, "utf16.py"), Buffer.from("\ufeffimport shop\n", "utf16le"));
  before = await treeDigest(repo);
  report = await shuffleRepository({ repo, out: out(), mapping: join(root, "keys", "mapping.json"), seed: 42 });
  mapping = parseShuffleMapping(JSON.parse(await readFile(join(root, "keys", "mapping.json"), "utf8")));
});
afterAll(async () => cleanup());

describe("shuffleRepository on a fixture checkout", () => {
  it("never modifies the original tree", async () => {
    expect(await treeDigest(repo)).toEqual(before);
  });

  it("writes the mapping outside the copy, with provenance, equal to the plan of the same entries", async () => {
    expect(report.mapping).toBe(await realpath(join(root, "keys", "mapping.json")));
    expect(mapping.provenance).toMatchObject({ tool: "@loclab/tools shuffleRepository", repo: await realpath(repo) });
    const { provenance: _provenance, ...plain } = mapping;
    expect(plain).toEqual(
      planShuffle(Object.keys(mapping.files), { seed: 42, directories: Object.keys(mapping.directories) }),
    );
  });

  it("reports what it did", () => {
    expect(report).toMatchObject({
      files: 17,
      symlinks: 2,
      pythonFiles: 9,
      unresolvedDynamicReferences: 0,
      // `config.yaml` and `CHANGELOG.md` in docs/index.md; `cart.py` is a Python file's name.
      nonCodeReferencesLeft: 2,
      nonCodePythonReferencesLeft: 1,
      unparsedFiles: [
        { path: "bad/broken.py", reason: "tree-sitter-error" },
        { path: "utf16.py", reason: "binary" },
      ],
      notUtf8Files: ["latin1.py"],
    });
    expect(report.importsRewritten).toBe(report.imports.statementsRewritten);
    expect(report.imports).toMatchObject({
      inRepository: 9,
      unresolvedInRepository: 0,
      submoduleNamesRenamed: 1,
      skippedInErrors: 0,
    });
    expect(report.skipped).toEqual([
      { path: ".git", reason: "skipped-directory" },
      { path: "links/a", reason: "symlink-loop" },
      { path: "links/b", reason: "symlink-loop" },
      { path: "links/hostname", reason: "symlink-outside" },
      { path: "links/nothing", reason: "symlink-dangling" },
      { path: "links/up", reason: "symlink-loop" },
    ]);
    expect(report.ms).toBeGreaterThan(0);
  });

  it("leaves no original name in the copy but the keep-list's", async () => {
    const digest = await treeDigest(out());
    const originals = new Set(
      [...Object.keys(mapping.files), ...Object.keys(mapping.directories)].map((path) => basename(path)),
    );
    for (const path of digest.keys()) {
      const name = basename(path);
      if (SHUFFLE_KEEP_NAMES.includes(name) || name.startsWith(".") || path === "src") continue;
      expect(name).toMatch(/^[dm]_[a-z0-9]{6}(\.[A-Za-z0-9_.+-]+)?$/);
      expect(originals.has(name), name).toBe(false);
    }
    expect(existsSync(join(out(), ".git"))).toBe(false);
  });

  it("keeps both names that differ only in case, as two lower-case names", async () => {
    const upper = mapping.files["notes/Readme.txt"] as string;
    const lower = mapping.files["notes/readme.txt"] as string;
    expect(upper.toLowerCase()).not.toBe(lower.toLowerCase());
    expect(await readFile(join(out(), upper), "utf8")).toBe("upper\n");
    expect(await readFile(join(out(), lower), "utf8")).toBe("lower\n");
  });

  it("writes links inside the tree as links to the shuffled targets", async () => {
    const link = shuffled("links/cart.py");
    expect(await readlink(link)).toBe(join("..", mapping.files["src/shop/cart.py"] as string));
    expect(await readFile(link, "utf8")).toBe(await readFile(shuffled("src/shop/cart.py"), "utf8"));
    expect(await realpath(shuffled("links/shop"))).toBe(await realpath(shuffled("src/shop")));
  });

  it("rewrites the imports outside the error of a file that does not parse, and those of a non-UTF-8 file byte-transparently", async () => {
    const broken = await readFile(shuffled("bad/broken.py"), "utf8");
    const [shop, cart] = [
      basename(mapping.directories["src/shop"] as string),
      basename(mapping.files["src/shop/cart.py"] as string, ".py"),
    ];
    expect(broken).toBe(`import ${shop}.${cart}\ndef f(:\n    pass\n`);
    expect(await readFile(shuffled("latin1.py"))).toEqual(
      Buffer.from(`# -*- coding: latin-1 -*-\nname = '\xe9'\nimport ${shop} as shop\n`, "latin1"),
    );
  });

  it("keeps file modes", async () => {
    const { path: folder, cleanup: done } = await temporaryFolder("shuffle-modes");
    try {
      await writeTree(join(folder, "repo"), { "run.sh": "#!/bin/sh\n" });
      await execa("chmod", ["755", join(folder, "repo", "run.sh")]);
      await shuffleRepository({
        repo: join(folder, "repo"),
        out: join(folder, "out"),
        mapping: join(folder, "m.json"),
        seed: 1,
      });
      const m = parseShuffleMapping(JSON.parse(await readFile(join(folder, "m.json"), "utf8")));
      const { stdout } = await execa("stat", ["-c", "%a", join(folder, "out", m.files["run.sh"] as string)]);
      expect(stdout).toBe("755");
    } finally {
      await done();
    }
  });
});

describe.skipIf(!existsSync(SYSTEM_PYTHON))("the fixture's shuffled copy under Debian's Python", () => {
  it("compiles (compileall), except the two files that did not compile before either", async () => {
    const broken = ["bad/broken.py", "utf16.py"].map((path) =>
      basename(mapping.files[path] as string).replace(".", "\\."),
    );
    const compiled = await execa(SYSTEM_PYTHON, ["-m", "compileall", "-q", "-x", broken.join("|"), out()], {
      reject: false,
    });
    expect(compiled.exitCode, compiled.stdout + compiled.stderr).toBe(0);
    for (const path of ["bad/broken.py", "utf16.py"]) {
      const original = await execa(SYSTEM_PYTHON, ["-m", "py_compile", join(repo, path)], { reject: false });
      expect(original.exitCode, path).not.toBe(0);
    }
  });

  it("runs: the package imports, `python -m` works, and the tests folder's own-root import resolves", async () => {
    const src = shuffled("src");
    const shop = basename(mapping.directories["src/shop"] as string);
    const run = await execa(SYSTEM_PYTHON, ["-m", shop], { env: { PYTHONPATH: src }, cwd: root });
    expect(run.stdout).toBe("50");
    const testModule = basename(mapping.files["tests/test_cart.py"] as string, ".py");
    const test = await execa(SYSTEM_PYTHON, ["-c", `import ${testModule}; ${testModule}.test_total(); print("ok")`], {
      env: { PYTHONPATH: `${shuffled("tests")}:${src}` },
      cwd: root,
    });
    expect(test.stdout).toBe("ok");
  });

  it("keeps the number of resolvable imports (static census before and after)", async () => {
    const [original, copy] = await Promise.all([treeCensus(repo), treeCensus(out())]);
    expect(copy).toEqual(original);
    expect(original.modulesResolved).toBeGreaterThanOrEqual(8);
  });
});

describe("same seed, same tree; another seed, another tree", () => {
  it("reproduces the copy byte for byte from the seed", async () => {
    const again = join(root, "again");
    await shuffleRepository({ repo, out: again, mapping: join(root, "keys", "again.json"), seed: 42 });
    expect(await treeDigest(again)).toEqual(await treeDigest(out()));
    const other = join(root, "other");
    await shuffleRepository({ repo, out: other, mapping: join(root, "keys", "other.json"), seed: 43 });
    const [a, b] = [await treeDigest(out()), await treeDigest(other)];
    expect([...b.keys()]).not.toEqual([...a.keys()]);
    expect([...b.values()].sort()).not.toEqual([...a.values()].sort());
  });
});

describe("refusals (nothing written)", () => {
  const attempt = (overrides: Partial<Parameters<typeof shuffleRepository>[0]>) =>
    shuffleRepository({
      repo,
      out: join(root, "fresh"),
      mapping: join(root, "keys", "fresh.json"),
      seed: 1,
      ...overrides,
    });

  it("refuses an out folder inside the checkout, or around it", async () => {
    await expect(attempt({ out: join(repo, "shuffled") })).rejects.toThrow(/inside the checkout/);
    await expect(attempt({ out: repo })).rejects.toThrow(/inside the checkout/);
    await expect(attempt({ out: root })).rejects.toThrow(/inside out/);
    expect(existsSync(join(repo, "shuffled"))).toBe(false);
  });

  it("refuses an out folder that exists and is not empty", async () => {
    await mkdir(join(root, "busy"));
    await writeFile(join(root, "busy", "x"), "");
    await expect(attempt({ out: join(root, "busy") })).rejects.toThrow(/not empty/);
  });

  it("refuses a mapping inside the shuffled tree or the checkout, or one that exists", async () => {
    await expect(attempt({ mapping: join(root, "fresh", "mapping.json") })).rejects.toThrow(
      /outside the shuffled tree/,
    );
    await expect(attempt({ mapping: join(repo, "mapping.json") })).rejects.toThrow(/inside the checkout/);
    await expect(attempt({ mapping: join(root, "keys", "mapping.json") })).rejects.toThrow(/already exists/);
    expect(existsSync(join(root, "fresh"))).toBe(false);
  });

  it("refuses a missing checkout", async () => {
    await expect(attempt({ repo: join(root, "nope") })).rejects.toThrow(/does not exist/);
  });

  it("accepts an empty existing out folder", async () => {
    await mkdir(join(root, "empty"));
    const result = await attempt({
      out: join(root, "empty"),
      mapping: join(dirname(root), `${basename(root)}-empty.json`),
    });
    expect(result.files).toBe(report.files);
    await execa("rm", ["-f", join(dirname(root), `${basename(root)}-empty.json`)]);
  });
});

describe("a tree-sitter error is not a claim that the file is invalid Python", () => {
  // tree-sitter-python#256 (grammar 0.25.0, as in sympy 1.1–1.4's sets.py): inside brackets, a
  // continuation line indented less than its block, after an operator, is an ERROR node to
  // tree-sitter; CPython compiles it. The plan lists it as `tree-sitter-error`, still rewrites
  // the imports outside the error, and says nothing about compiling.
  const source = "import pkg.mod\n\nif pkg.mod:\n    f(1 +\ny)\n";
  it.runIf(existsSync(SYSTEM_PYTHON))(
    "CPython compiles it; the plan calls it a tree-sitter error and rewrites its import",
    async () => {
      const compiled = await execa(
        SYSTEM_PYTHON,
        ["-c", "import sys; compile(sys.stdin.read(), 'dedented.py', 'exec')"],
        { input: source, reject: false },
      );
      expect(compiled.exitCode, compiled.stderr).toBe(0);
      const files = ["pkg/__init__.py", "pkg/mod.py", "dedented.py"];
      const pythonSources = new Map(
        files.map((path) => [path, Buffer.from(path === "dedented.py" ? source : "")] as const),
      );
      const plan = planRepositoryShuffle(
        { files, directories: ["pkg"], symlinks: [], pythonSources },
        { seed: 3 },
        await loadPythonParser(),
      );
      expect(plan.unparsedFiles).toEqual([{ path: "dedented.py", reason: "tree-sitter-error" }]);
      const rewritten = Buffer.from(plan.rewritten.get("dedented.py") ?? new Uint8Array()).toString("utf8");
      const [pkg, mod] = (plan.mapping.files["pkg/mod.py"] as string).replace(/\.py$/, "").split("/");
      expect(rewritten.split("\n")[0]).toMatch(new RegExp(`^import ${pkg}\\.${mod}\\b`));
      expect(rewritten).not.toContain("import pkg.mod");
    },
  );
});
