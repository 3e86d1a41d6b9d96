import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPathInput, connectedTree, openWorkspace, repoTree, runTool, searchCode, viewFile } from "../src/index.js";
import { temporaryDir, writeTree } from "./helpers.js";
import { writeSampleRepo } from "./sample-repo.js";

// The checkout sits next to a "secret" file, so that escaping it would find something.
const parent = temporaryDir("loclab-safety-");
writeTree(parent, { "secret.txt": "TOP SECRET run\n" });
const root = writeSampleRepo({
  "links/parent_secret.txt": { symlink: join(parent, "secret.txt") },
  "links/up": { symlink: parent },
});
const open = () => openWorkspace({ root, limits: { maxPathLength: 200 } });

describe("every path stays inside the checkout (issue 6, item 3)", () => {
  it("refuses .. segments, wherever they are", async () => {
    const workspace = await open();
    for (const path of ["../secret.txt", "src/../../secret.txt", "src/app/../core.py", ".."]) {
      await expect(viewFile(workspace, { path })).rejects.toMatchObject({
        code: "refused",
        message: expect.stringContaining('contains ".."'),
      });
    }
    await expect(repoTree(workspace, { path: "../" })).rejects.toMatchObject({ code: "refused" });
    await expect(connectedTree(workspace, { path: "../x.py" })).rejects.toMatchObject({ code: "refused" });
  });

  it("refuses absolute paths outside the root, accepts those inside", async () => {
    const workspace = await open();
    await expect(viewFile(workspace, { path: "/etc/passwd" })).rejects.toMatchObject({
      code: "refused",
      message:
        'path "/etc/passwd" is an absolute path outside the repository: give a path relative to the repository root (e.g. "src/module.py")',
    });
    await expect(viewFile(workspace, { path: join(parent, "secret.txt") })).rejects.toMatchObject({ code: "refused" });
    await expect(viewFile(workspace, { path: `${workspace.root}x/setup.py` })).rejects.toMatchObject({
      code: "refused",
    });
    expect(await viewFile(workspace, { path: join(workspace.root, "setup.py") })).toMatchObject({
      status: "shown",
      path: "setup.py",
    });
  });

  it("refuses symbolic links that point outside (files and folders), follows those inside", async () => {
    const workspace = await open();
    for (const path of ["links/outside.txt", "links/parent_secret.txt", "links/outside_dir", "links/up"]) {
      await expect(viewFile(workspace, { path })).rejects.toMatchObject({
        code: "refused",
        message: expect.stringContaining("symbolic link that points outside"),
      });
    }
    // Files behind a folder link are not files of the workspace (folder links are never walked into).
    for (const path of ["links/outside_dir/hostname", "links/up/secret.txt"]) {
      expect(await viewFile(workspace, { path })).toMatchObject({ status: "not-found" });
    }
    await expect(viewFile(workspace, { path: "links/parent_secret.txt" })).rejects.toMatchObject({
      code: "refused",
      message:
        '"links/parent_secret.txt" is a symbolic link that points outside the repository, or lies below one; it is not read',
    });
    await expect(workspace.resolveInside("links/outside_dir/hostname")).rejects.toMatchObject({ code: "refused" });
    await expect(workspace.resolveInside("links/up/secret.txt")).rejects.toMatchObject({ code: "refused" });
    expect(await viewFile(workspace, { path: "links/inside.py" })).toMatchObject({
      status: "shown",
      symlinkTarget: "src/app/config.py",
    });
    const search = await searchCode(workspace, { query: "TOP SECRET" });
    expect(search.totalHits).toBe(0);
  });

  it("refuses NUL bytes and over-long inputs with a message naming the limit", async () => {
    const workspace = await open();
    await expect(viewFile(workspace, { path: "setup.py\0.txt" })).rejects.toMatchObject({
      code: "refused",
      message: "path contains a NUL byte",
    });
    await expect(viewFile(workspace, { path: "a".repeat(201) })).rejects.toMatchObject({
      code: "refused",
      message: "path is 201 characters long; the limit is 200",
    });
    await expect(repoTree(workspace, { include: ["x".repeat(201)] })).rejects.toMatchObject({
      code: "refused",
      message: "include glob is 201 characters long; the limit is 200",
    });
    await expect(searchCode(workspace, { query: "x", glob: "*\0" })).rejects.toMatchObject({
      code: "refused",
      message: "glob contains a NUL byte",
    });
    await expect(searchCode(workspace, { query: "q".repeat(1001) })).rejects.toMatchObject({ code: "refused" });
    await expect(repoTree(workspace, { include: Array.from({ length: 51 }, () => "*.py") })).rejects.toMatchObject({
      code: "refused",
      message: "at most 50 include and 50 exclude globs",
    });
  });

  it("runs no shell: shell syntax in inputs is just text", async () => {
    const workspace = await open();
    const marker = join(root, "pwned");
    for (const call of [
      { name: "view_file", arguments: { path: "$(touch pwned).py" } },
      { name: "view_file", arguments: { path: "`touch pwned`" } },
      { name: "search_code", arguments: { query: "'; touch pwned; echo '", glob: "$(touch pwned)" } },
      { name: "repo_tree", arguments: { path: "; touch pwned" } },
    ]) {
      const outcome = await runTool(workspace, call);
      expect(outcome.text).not.toContain("TOP SECRET");
    }
    expect(existsSync(marker)).toBe(false);
    expect(readdirSync(root)).not.toContain("pwned");
  });

  it("normalizes harmless spellings", () => {
    const options = { root: "/w/repo", maxLength: 100 };
    expect(checkPathInput("./src//app/./core.py/", options)).toBe("src/app/core.py");
    expect(checkPathInput("  setup.py  ", options)).toBe("setup.py");
    expect(checkPathInput("/w/repo/src", options)).toBe("src");
    expect(checkPathInput("/w/repo", options)).toBe("");
    expect(() => checkPathInput("/w/repository/x", options)).toThrow("absolute path outside the repository");
  });
});

describe("files over the size limit are never read whole", () => {
  it("streams them for search and view, and keeps none of their bytes", async () => {
    const big = `${"0123456789".repeat(10)}\n`.repeat(2000); // 202,000 bytes
    const tree = writeTree(temporaryDir(), { "big.txt": `${big}needle at the end\n`, "small.txt": "needle\n" });
    const workspace = await openWorkspace({ root: tree, limits: { maxFileBytes: 10_000 } });
    const search = await searchCode(workspace, { query: "needle" });
    expect(search.hits.map((hit) => `${hit.path}:${hit.line}`)).toEqual(["big.txt:2001", "small.txt:1"]);
    expect(await viewFile(workspace, { path: "big.txt", start: 2001 })).toMatchObject({
      lines: ["needle at the end"],
      totalLines: 2001,
    });
    expect(workspace.stats().cachedBytes).toBeLessThan(10_000);
    expect(await workspace.read("big.txt")).toMatchObject({ kind: "large", size: 202_018 });
  });
});

describe("special and huge files (issue 12, items 9 and 10)", () => {
  it("a FIFO, and a link to one, are refused as not regular files instead of waiting for a writer", async () => {
    const folder = temporaryDir("loclab-fifo-");
    writeTree(folder, { "a.py": "import os\n" });
    execFileSync("mkfifo", [join(folder, "pipe")]);
    symlinkSync("pipe", join(folder, "to_pipe"));
    const workspace = await openWorkspace({ root: folder, files: "walk" });
    for (const path of ["to_pipe"]) {
      await expect(viewFile(workspace, { path })).rejects.toMatchObject({
        message: expect.stringContaining("not a regular file"),
      });
    }
    const search = await searchCode(workspace, { query: "import" });
    expect(search.hits.map((hit) => hit.path)).toEqual(["a.py"]);
  });

  it("viewing a 50 MB file of one line shows its first 10,000 characters, cut, without holding the line", async () => {
    const folder = temporaryDir("loclab-longline-");
    writeFileSync(join(folder, "min.js"), `${"x".repeat(50 * 1024 * 1024)}\nsecond line\n`);
    const workspace = await openWorkspace({ root: folder, files: "walk" });
    const shown = await viewFile(workspace, { path: "min.js" });
    if (shown.status !== "shown") throw new Error(`min.js not shown: ${shown.status}`);
    expect(shown.lines).toHaveLength(1);
    expect(shown.lines[0]?.length).toBeLessThanOrEqual(10_000);
    expect(shown.cappedBy).toBe("chars");
    const second = await viewFile(workspace, { path: "min.js", start: 2 });
    expect(second).toMatchObject({ status: "shown", lines: ["second line"] });
  });
});
