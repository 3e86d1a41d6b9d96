import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  WorkspaceError,
  clearCachedWorkspaces,
  connectedTree,
  findMirror,
  materializeWorkspace,
  openWorkspace,
  removeMaterializedWorkspace,
  repoTree,
  searchCode,
  viewFile,
  workspaceCachePath,
} from "../src/index.js";
import { git, makeGitRepo, temporaryDir, writeTree } from "./helpers.js";

// One repository with two commits, cloned three ways into a mirrors folder.
const mirrors = temporaryDir("loclab-mirrors-");
const origin = join(temporaryDir("loclab-origin-"), "origin");
const [first, second] = makeGitRepo(origin, [
  {
    "pkg/__init__.py": "",
    "pkg/core.py": "from . import util\nVALUE = 'first'\n",
    "pkg/util.py": "def helper():\n    return 1\n",
    "README.md": "first\n",
    "link.py": { symlink: "pkg/util.py" },
    ".gitattributes": "*.txt text eol=crlf\nexport.txt export-ignore\n",
    "notes.txt": "one\ntwo\n",
    "export.txt": "kept in a checkout\n",
  },
  {
    "pkg/core.py": "from . import util\nfrom pkg import extra\nVALUE = 'second'\n",
    "pkg/extra.py": "X = 2\n",
    "README.md": null,
  },
]) as [string, string];
git(mirrors, ["clone", "-q", "--bare", origin, join(mirrors, "acme__bare.git")]);
git(mirrors, ["clone", "-q", origin, join(mirrors, "acme__plain")]);
git(mirrors, ["clone", "-q", "--mirror", origin, join(mirrors, "acme__mirror.git")]);
writeTree(mirrors, { "acme__notgit/README": "not a repository\n" });

const instance = (repo: string, commit: string) => ({ repo, base_commit: commit, instance_id: `${repo}-1` });

describe("materializeWorkspace", () => {
  it("checks out the base commit from a bare, a plain and a --mirror clone alike", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    for (const repo of ["acme/bare", "acme/plain", "acme/mirror"]) {
      const workspace = await materializeWorkspace({ instance: instance(repo, first), mirrors, cacheDir });
      expect(workspace).toMatchObject({ source: "git-commit", repo, commit: first });
      expect(await workspace.paths()).toEqual([
        ".gitattributes",
        "README.md",
        "export.txt",
        "link.py",
        "notes.txt",
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/util.py",
      ]);
      expect((await workspace.files()).find((entry) => entry.path === "link.py")).toEqual({
        path: "link.py",
        kind: "symlink",
      });
      expect(await viewFile(workspace, { path: "pkg/core.py" })).toMatchObject({
        lines: ["from . import util", "VALUE = 'first'"],
      });
      expect(await viewFile(workspace, { path: "link.py" })).toMatchObject({
        status: "shown",
        symlinkTarget: "pkg/util.py",
      });
      // A checkout, as git checkout would make it: attributes apply (eol=crlf), export-ignore does not.
      expect(readFileSync(join(workspace.root, "notes.txt"), "utf8")).toBe("one\r\ntwo\r\n");
      expect(workspace.root).toBe(join(workspaceCachePath(cacheDir, repo, first), "tree"));
    }
  });

  it("finds a mirror under a relative folder as under its absolute path", async () => {
    const found = await findMirror(relative(process.cwd(), mirrors), "acme/bare");
    expect(found).toEqual({ path: join(mirrors, "acme__bare.git"), gitDir: join(mirrors, "acme__bare.git") });
  });

  it("accepts an abbreviated commit, caches by full commit id, and gives each commit its own tree", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const a = await materializeWorkspace({ instance: instance("acme/bare", first.slice(0, 10)), mirrors, cacheDir });
    expect(a.commit).toBe(first);
    const manifestPath = join(workspaceCachePath(cacheDir, "acme/bare", first), "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    expect(manifest).toMatchObject({ schemaVersion: 1, kind: "loclab.workspace", repo: "acme/bare", commit: first });
    const created = statSync(manifestPath).mtimeMs;
    const again = await materializeWorkspace({ instance: instance("acme/bare", first), mirrors, cacheDir });
    expect(again.root).toBe(a.root);
    expect(statSync(manifestPath).mtimeMs).toBe(created); // reused, not rebuilt
    const b = await materializeWorkspace({ instance: instance("acme/bare", second), mirrors, cacheDir });
    expect(await b.paths()).toContain("pkg/extra.py");
    expect(await b.paths()).not.toContain("README.md");
    expect((await connectedTree(b, { path: "pkg/core.py" })).status).toBe("shown");
    expect(readdirSync(join(cacheDir, "acme__bare")).sort()).toEqual([first, second].sort());
  });

  it("materializes concurrently without a half tree or a duplicate", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const all = await Promise.all(
      Array.from({ length: 4 }, () =>
        materializeWorkspace({ instance: instance("acme/plain", second), mirrors, cacheDir }),
      ),
    );
    expect(new Set(all.map((workspace) => workspace.root)).size).toBe(1);
    expect(readdirSync(join(cacheDir, "acme__plain"))).toEqual([second]);
  });

  it("makes the tree's files read-only (folders stay deletable) and leaves the mirror untouched", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const before =
      git(join(mirrors, "acme__plain"), ["status", "--porcelain"]) +
      readdirSync(join(mirrors, "acme__bare.git")).join(",");
    const workspace = await materializeWorkspace({ instance: instance("acme/plain", first), mirrors, cacheDir });
    expect(statSync(join(workspace.root, "pkg/core.py")).mode & 0o777).toBe(0o444);
    // Folders writable by their owner, so that a user who is not root can delete a run folder.
    expect(statSync(join(workspace.root, "pkg")).mode & 0o777).toBe(0o755);
    await materializeWorkspace({ instance: instance("acme/bare", first), mirrors, cacheDir });
    const after =
      git(join(mirrors, "acme__plain"), ["status", "--porcelain"]) +
      readdirSync(join(mirrors, "acme__bare.git")).join(",");
    expect(after).toBe(before);
    expect(existsSync(join(mirrors, "acme__bare.git", "worktrees"))).toBe(false);
  });

  it("says clearly what is wrong: no mirror, not a git repository, unknown commit, bad instance", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    await expect(
      materializeWorkspace({ instance: instance("acme/absent", first), mirrors, cacheDir }),
    ).rejects.toMatchObject({
      name: "WorkspaceError",
      code: "no-mirror",
      message: expect.stringContaining(
        `no mirror of acme/absent: neither ${join(mirrors, "acme__absent")} nor ${join(mirrors, "acme__absent.git")} exists`,
      ),
    });
    await expect(
      materializeWorkspace({ instance: instance("acme/notgit", first), mirrors, cacheDir }),
    ).rejects.toMatchObject({
      code: "not-a-git-repository",
      message: `${join(mirrors, "acme__notgit")} (the mirror of acme/notgit) is not a git repository`,
    });
    const unknown = "0123456789abcdef0123456789abcdef01234567";
    await expect(
      materializeWorkspace({ instance: instance("acme/bare", unknown), mirrors, cacheDir }),
    ).rejects.toMatchObject({
      code: "unknown-commit",
      message: `commit ${unknown} of acme/bare is not in the mirror ${join(mirrors, "acme__bare.git")} (fetch it, or check the instance's base_commit)`,
    });
    await expect(
      materializeWorkspace({ instance: instance("acme/bare", "HEAD~1"), mirrors, cacheDir }),
    ).rejects.toMatchObject({ code: "invalid-instance" });
    await expect(
      materializeWorkspace({ instance: instance("../etc", first), mirrors, cacheDir }),
    ).rejects.toBeInstanceOf(WorkspaceError);
    await expect(
      materializeWorkspace({ instance: instance("acme/..", first), mirrors, cacheDir }),
    ).rejects.toMatchObject({ code: "invalid-instance" });
    expect(existsSync(join(cacheDir, "acme__bare"))).toBe(false);
  });

  it("removes the .tmp-* folders of killed materializations when it materializes next; a live one's stays", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    // pid 4206649 is above Linux's default pid_max (4194304): no process has it.
    writeTree(cacheDir, {
      [`acme__bare/.tmp-${second}-4206649-abcd/tree/x`]: "half",
      [`acme__bare/.tmp-${second}-${process.pid}-ef01/tree/x`]: "in progress",
    });
    await materializeWorkspace({ instance: instance("acme/bare", first), mirrors, cacheDir });
    expect(readdirSync(join(cacheDir, "acme__bare")).filter((name) => name.startsWith(".tmp-"))).toEqual([
      `.tmp-${second}-${process.pid}-ef01`,
    ]);
  });

  it("removes one tree, or clears the cache (old trees only, or all, and leftovers of dead processes, never a live one's)", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    await materializeWorkspace({ instance: instance("acme/bare", first), mirrors, cacheDir });
    await materializeWorkspace({ instance: instance("acme/bare", second), mirrors, cacheDir });
    await materializeWorkspace({ instance: instance("acme/plain", first), mirrors, cacheDir });
    const dead = `.tmp-${second}-${2 ** 22 + 12345}-abcd`;
    const live = `.tmp-${second}-${process.pid}-ef02`;
    writeTree(cacheDir, { [`acme__plain/${dead}/tree/x`]: "half", [`acme__plain/${live}/tree/x`]: "in progress" });
    await removeMaterializedWorkspace({ cacheDir, repo: "acme/bare", commit: first });
    expect(existsSync(workspaceCachePath(cacheDir, "acme/bare", first))).toBe(false);
    // Nothing is a minute old; and no stored file goes with the tree removed above: the plain
    // clone's tree of the same commit links to every one (the store is keyed by content).
    expect(await clearCachedWorkspaces(cacheDir, { olderThanMs: 60_000 })).toEqual([]);
    expect(readdirSync(join(cacheDir, "acme__plain")).filter((name) => name.startsWith(".tmp-"))).toEqual([live]);
    const later = new Date(Date.now() + 120_000);
    const removed = await clearCachedWorkspaces(cacheDir, { olderThanMs: 60_000, now: later });
    expect(removed.map((entry) => entry.path)).toEqual([
      workspaceCachePath(cacheDir, "acme/bare", second),
      workspaceCachePath(cacheDir, "acme/plain", first),
      // The stored files no tree links to any more (all of them: no tree is left).
      join(cacheDir, "blobs"),
    ]);
    // A materialization still running keeps its folder (and so its repository's folder).
    expect(readdirSync(cacheDir)).toEqual(["acme__plain"]);
    expect(readdirSync(join(cacheDir, "acme__plain"))).toEqual([live]);
  });
});

describe("openWorkspace", () => {
  it("uses git's file list in a working tree, and every file in a plain folder", async () => {
    const checkout = join(mirrors, "acme__plain");
    const fromGit = await openWorkspace({ root: checkout });
    expect(fromGit.source).toBe("git-index");
    writeFileSync(join(checkout, "untracked.py"), "x = 1\n");
    expect(await fromGit.paths()).not.toContain("untracked.py");
    const walked = await openWorkspace({ root: checkout, files: "walk" });
    expect(walked.source).toBe("directory");
    expect(await walked.paths()).toContain("untracked.py");
    expect((await walked.paths()).some((path) => path.startsWith(".git/"))).toBe(false);
  });

  it("refuses a missing folder or a file", async () => {
    await expect(openWorkspace({ root: join(mirrors, "nothing") })).rejects.toMatchObject({ code: "not-a-directory" });
    await expect(openWorkspace({ root: join(mirrors, "acme__notgit", "README") })).rejects.toMatchObject({
      code: "not-a-directory",
    });
  });
});

describe("what a workspace keeps (issue 6, item 4)", () => {
  const tree = writeTree(
    temporaryDir(),
    Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `pkg/m${String(i).padStart(2, "0")}.py`,
        `import pkg.m${String((i + 1) % 40).padStart(2, "0")}\n${"# filler\n".repeat(50)}`,
      ]),
    ),
  );

  it("reads each file from disk once: repeated calls in a session do not touch the disk", async () => {
    const workspace = await openWorkspace({ root: tree });
    await searchCode(workspace, { query: "filler" });
    const reads = workspace.stats().diskReads;
    expect(reads).toBe(40);
    await searchCode(workspace, { query: "import" });
    await viewFile(workspace, { path: "pkg/m07.py" });
    await repoTree(workspace, {});
    await connectedTree(workspace, { path: "pkg/m07.py", depth: 3 });
    await workspace.importGraph();
    await connectedTree(workspace, { path: "pkg/m08.py", depth: 3 });
    expect(workspace.stats().diskReads).toBe(reads);
    expect(workspace.stats()).toMatchObject({ files: 40, cachedTextFiles: 40, evictions: 0, importGraphBuilt: true });
  });

  it("stays within its memory budget, dropping the least recently used contents, with the same answers", async () => {
    const bounded = await openWorkspace({ root: tree, limits: { maxCacheBytes: 3000 } });
    const unbounded = await openWorkspace({ root: tree });
    for (const query of ["filler", "import pkg.m1", "m39"]) {
      expect(await searchCode(bounded, { query, maxHits: 5000 })).toEqual(
        await searchCode(unbounded, { query, maxHits: 5000 }),
      );
      expect(bounded.stats().cachedBytes).toBeLessThanOrEqual(3000);
    }
    expect(bounded.stats().evictions).toBeGreaterThan(0);
    expect(await connectedTree(bounded, { path: "m05.py", depth: 2 })).toEqual(
      await connectedTree(unbounded, { path: "m05.py", depth: 2 }),
    );
  });

  it("lists nothing and parses nothing until a tool needs it", async () => {
    const workspace = await openWorkspace({ root: tree });
    expect(workspace.stats()).toMatchObject({ files: 0, diskReads: 0, importGraphBuilt: false });
    await viewFile(workspace, { path: "pkg/m01.py" });
    expect(workspace.stats()).toMatchObject({ files: 40, diskReads: 1, importGraphBuilt: false });
    workspace.dispose();
    expect(workspace.stats()).toMatchObject({ cachedTextFiles: 0, cachedBytes: 0 });
  });
});
