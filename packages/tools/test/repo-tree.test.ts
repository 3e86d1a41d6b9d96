import { describe, expect, it } from "vitest";
import { openWorkspace, pathCategories, renderRepoTree, repoTree } from "../src/index.js";
import { writeSampleRepo } from "./sample-repo.js";

const root = writeSampleRepo();
const open = (limits = {}) => openWorkspace({ root, limits });

describe("repo_tree", () => {
  it("lists to a depth, folders first, and summarizes deeper folders by file count", async () => {
    const result = await repoTree(await open(), { depth: 1 });
    expect(renderRepoTree(result)).toBe(
      [
        "repo_tree . (depth 1): 25 files shown; hidden: 2 hidden (dot files) (hideHidden=false shows them), 2 vendored (hideVendored=false shows them)",
        "data/ (8 files)",
        "docs/ (1 file)",
        "links/ (3 files)",
        "src/ (9 files)",
        "tests/ (2 files)",
        "README.md",
        "setup.py",
        "",
      ].join("\n"),
    );
    expect(result.hidden).toEqual({ notIncluded: 0, excluded: 0, hidden: 2, vendored: 2, tests: 0, docs: 0 });
  });

  it("lists a sub-folder deeper, with entries carrying repository-relative paths", async () => {
    const result = await repoTree(await open(), { path: "src", depth: 3 });
    expect(
      result.entries.map(
        (entry) => `${"  ".repeat(entry.depth - 1)}${entry.path}${entry.type === "folder" ? "/" : ""}`,
      ),
    ).toEqual([
      "src/app/",
      "  src/app/utils/",
      "    src/app/utils/__init__.py",
      "    src/app/utils/helpers.py",
      "    src/app/utils/text.py",
      "  src/app/Views.py",
      "  src/app/__init__.py",
      "  src/app/config.py",
      "  src/app/core.py",
      "  src/app/models.py",
      "  src/app/views_test_helpers.py",
    ]);
  });

  it("hides tests, docs, vendored and hidden files by option, and counts each once", async () => {
    const workspace = await open();
    const everything = await repoTree(workspace, { hideHidden: false, hideVendored: false });
    expect(everything.shownFiles).toBe(29);
    const hidingAll = await repoTree(workspace, {
      hideTests: true,
      hideDocs: true,
      hideVendored: true,
      hideHidden: true,
      depth: 5,
    });
    expect(hidingAll.hidden).toEqual({ notIncluded: 0, excluded: 0, hidden: 2, vendored: 2, tests: 2, docs: 2 });
    expect(hidingAll.shownFiles).toBe(29 - 8);
    expect(hidingAll.entries.some((entry) => entry.path.startsWith("tests") || entry.path === "README.md")).toBe(false);
    expect(renderRepoTree(hidingAll).split("\n")[0]).toBe(
      "repo_tree . (depth 5): 21 files shown; hidden: 2 hidden (dot files) (hideHidden=false shows them), 2 vendored (hideVendored=false shows them), 2 tests (hideTests=false shows them), 2 docs (hideDocs=false shows them)",
    );
  });

  it("filters by include and exclude globs", async () => {
    const workspace = await open();
    const python = await repoTree(workspace, { include: ["*.py"], exclude: ["tests"], depth: 5 });
    expect(python.entries.filter((entry) => entry.type === "file").map((entry) => entry.path)).toEqual([
      "links/inside.py",
      "src/app/utils/__init__.py",
      "src/app/utils/helpers.py",
      "src/app/utils/text.py",
      "src/app/Views.py",
      "src/app/__init__.py",
      "src/app/config.py",
      "src/app/core.py",
      "src/app/models.py",
      "src/app/views_test_helpers.py",
      "setup.py",
    ]);
    expect(python.hidden).toMatchObject({ notIncluded: 16, excluded: 2 });
  });

  it("caps the entries and says how many were cut", async () => {
    const result = await repoTree(await open({ treeMaxEntries: 4 }), { depth: 3 });
    expect(result.entries).toHaveLength(4);
    expect(result.truncated).toBeGreaterThan(0);
    expect(renderRepoTree(result)).toContain(`[${result.truncated} more entries not listed`);
  });

  it("refuses a file, a missing folder and a bad depth", async () => {
    const workspace = await open();
    await expect(repoTree(workspace, { path: "setup.py" })).rejects.toThrow(
      '"setup.py" is a file, not a folder: show it with view_file',
    );
    await expect(repoTree(workspace, { path: "nope" })).rejects.toThrow('No such folder: "nope"');
    await expect(repoTree(workspace, { depth: 0 })).rejects.toThrow("depth must be an integer from 1 to 20");
  });
});

describe("path categories", () => {
  it.each([
    [".github/workflows/ci.yml", ["hidden"]],
    ["django/contrib/admin/static/admin/js/vendor/xregexp/xregexp.js", ["vendored"]],
    ["static/app.min.js", ["vendored"]],
    ["sympy/core/tests/test_basic.py", ["tests"]],
    ["tests/admin_views/models.py", ["tests"]],
    ["src/_pytest/python.py", []],
    ["conftest.py", ["tests"]],
    ["pkg/util_test.py", ["tests"]],
    ["docs/conf.py", ["docs"]],
    ["CHANGES.rst", ["docs"]],
    ["Doc/tutorial.txt", ["docs"]],
    ["third_party/.hidden/tests/readme.md", ["hidden", "vendored", "tests", "docs"]],
    ["django/test/client.py", ["tests"]],
    ["latest/contest.py", []],
  ])("%s → %j", (path, categories) => {
    expect(pathCategories(path)).toEqual(categories);
  });
});
