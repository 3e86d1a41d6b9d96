import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  clearCachedWorkspaces,
  gitBlobId,
  listWorkspaceCache,
  materializeWorkspace,
  placeBlob,
  removeMaterializedWorkspace,
  shuffleRepository,
  workspaceCachePath,
} from "../src/index.js";
import { git, temporaryDir, writeTree } from "./helpers.js";

// One repository with what a checkout can hold: executables, links, a submodule, empty and
// duplicate files, files git converts on checkout (eol=crlf, ident), nested folders; and a
// second commit that changes one file and adds one.
const mirrors = temporaryDir("loclab-blob-mirrors-");
const origin = join(mirrors, "acme__blobs");
function commitAll(message: string): string {
  git(origin, ["add", "-A"]);
  git(origin, ["commit", "-q", "-m", message]);
  return git(origin, ["rev-parse", "HEAD"]).trim();
}
git(mirrors, ["init", "-q", "-b", "main", origin]);
writeTree(origin, {
  ".gitattributes": "*.txt text eol=crlf\n*.c ident\n",
  "pkg/__init__.py": "",
  "pkg/sub/__init__.py": "",
  "pkg/core.py": "VALUE = 1\n",
  "pkg/same.py": "VALUE = 1\n",
  "bin/run.sh": "#!/bin/sh\necho run\n",
  "notes.txt": "one\ntwo\n",
  "id.c": "/* $Id$ */\n",
  "link.py": { symlink: "pkg/core.py" },
  dangling: { symlink: "nowhere/at/all" },
});
chmodSync(join(origin, "bin/run.sh"), 0o755);
git(origin, ["update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},vendor/sub`]);
const first = commitAll("first");
writeTree(origin, { "pkg/core.py": "VALUE = 2\n", "pkg/extra.py": "X = 3\n" });
const second = commitAll("second");

/** Every entry under a folder: its kind, executable bit and bytes (or a link's target). */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string, prefix: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const key = prefix + name;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) out[key] = `link ${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        out[key] = "folder";
        walk(path, `${key}/`);
      } else out[key] = `file ${(stats.mode & 0o111) !== 0 ? "x" : "-"} ${readFileSync(path).toString("base64")}`;
    }
  };
  walk(root, "");
  return out;
}

/** The reference: `git checkout-index --all` of the commit into a fresh folder, as loclab did before. */
function checkoutIndex(commit: string): string {
  const dir = temporaryDir("loclab-blob-reference-");
  const env = { ...process.env, GIT_INDEX_FILE: join(dir, "index"), GIT_CONFIG_GLOBAL: "/dev/null" };
  const gitDir = join(origin, ".git");
  execFileSync("git", ["--git-dir", gitDir, "--work-tree", join(dir, "tree"), "read-tree", commit], { env });
  execFileSync("mkdir", ["-p", join(dir, "tree")]);
  execFileSync("git", ["--git-dir", gitDir, "--work-tree", join(dir, "tree"), "checkout-index", "--all", "--force"], {
    env,
  });
  return join(dir, "tree");
}

const instance = (commit: string) => ({ repo: "acme/blobs", base_commit: commit });
const blobsOf = (cacheDir: string) =>
  readdirSync(join(cacheDir, "blobs")).flatMap((shard) => readdirSync(join(cacheDir, "blobs", shard)));

describe("the workspace cache's blob store", () => {
  it("a tree is what git checkout-index writes, byte for byte, with each file stored once across commits", async () => {
    const cacheDir = temporaryDir("loclab-blob-cache-");
    for (const commit of [first, second]) {
      const workspace = await materializeWorkspace({ instance: instance(commit), mirrors, cacheDir });
      expect(snapshot(workspace.root)).toEqual(snapshot(checkoutIndex(commit)));
    }
    // Converted on checkout, as git does: not the blob's bytes.
    const tree = (commit: string) => join(workspaceCachePath(cacheDir, "acme/blobs", commit), "tree");
    expect(readFileSync(join(tree(first), "notes.txt"), "utf8")).toBe("one\r\ntwo\r\n");
    expect(readFileSync(join(tree(first), "id.c"), "utf8")).toMatch(/^\/\* \$Id: [0-9a-f]{40} \$ \*\/\n$/);
    // An unchanged file is one inode in both trees and the store; a changed one is not.
    const inode = (commit: string, path: string) => lstatSync(join(tree(commit), path)).ino;
    expect(inode(first, "pkg/same.py")).toBe(inode(second, "pkg/same.py"));
    expect(inode(first, "bin/run.sh")).toBe(inode(second, "bin/run.sh"));
    expect(inode(first, "pkg/core.py")).not.toBe(inode(second, "pkg/core.py"));
    // The same bytes at two paths of one commit: one blob (core.py and same.py at the first).
    expect(inode(first, "pkg/core.py")).toBe(inode(first, "pkg/same.py"));
    expect(lstatSync(join(tree(first), "bin/run.sh")).mode & 0o777).toBe(0o555);
    expect(lstatSync(join(tree(first), "pkg/core.py")).mode & 0o777).toBe(0o444);
    // Stored: "" (empty), "VALUE = 1", run.sh, .gitattributes, then "VALUE = 2" and extra.py.
    expect(blobsOf(cacheDir).sort()).toEqual(
      [
        { content: "", x: false },
        { content: "VALUE = 1\n", x: false },
        { content: "#!/bin/sh\necho run\n", x: true },
        { content: "*.txt text eol=crlf\n*.c ident\n", x: false },
        { content: "VALUE = 2\n", x: false },
        { content: "X = 3\n", x: false },
      ]
        .map(({ content, x }) => `${gitBlobId(Buffer.from(content))}.${x ? "x" : "r"}`)
        .sort(),
    );

    // Physical size: each block once, as GNU du counts hard links (once per invocation).
    const entries = await listWorkspaceCache(cacheDir);
    const physical = entries.reduce((sum, entry) => sum + entry.diskBytes, 0);
    const du = Number(execFileSync("du", ["-s", "--block-size=1", cacheDir], { encoding: "utf8" }).split("\t")[0]);
    const top = lstatSync(cacheDir).blocks * 512 + lstatSync(join(cacheDir, "acme__blobs")).blocks * 512;
    expect(physical + top).toBe(du);
    const trees = entries.filter((entry) => entry.kind === "tree");
    expect(entries.find((entry) => entry.kind === "blobs")).toMatchObject({ files: 6 });
    // Logical: a tree counts every file it holds, shared or not (the second adds extra.py).
    const byCommit = new Map(trees.map((entry) => [entry.commit, entry]));
    expect(byCommit.get(second)!.files - byCommit.get(first)!.files).toBe(1);
    expect(byCommit.get(second)!.bytes - byCommit.get(first)!.bytes).toBeGreaterThanOrEqual("X = 3\n".length);
  });

  it("clearing a tree frees only the stored files no other tree links to; clearing all empties the store", async () => {
    const cacheDir = temporaryDir("loclab-blob-cache-");
    for (const commit of [first, second]) await materializeWorkspace({ instance: instance(commit), mirrors, cacheDir });
    const before = blobsOf(cacheDir);
    await removeMaterializedWorkspace({ cacheDir, repo: "acme/blobs", commit: second });
    // Removing a tree leaves its blobs until a clear collects them.
    expect(blobsOf(cacheDir)).toEqual(before);
    // A clear that removes no entry (none is an hour old) still collects them: the second
    // commit's own "VALUE = 2" and extra.py; "VALUE = 1" (same.py) is the first's too.
    const own = ["VALUE = 2\n", "X = 3\n"].map((text) => `${gitBlobId(Buffer.from(text))}.r`);
    const removed = await clearCachedWorkspaces(cacheDir, { olderThanMs: 3_600_000 });
    expect(removed).toMatchObject([{ kind: "blobs", files: 2, bytes: 16 }]);
    expect(blobsOf(cacheDir).sort()).toEqual(before.filter((name) => !own.includes(name)).sort());
    const kept = snapshot(join(workspaceCachePath(cacheDir, "acme/blobs", first), "tree"));
    expect(kept).toEqual(snapshot(checkoutIndex(first)));

    const all = await clearCachedWorkspaces(cacheDir);
    expect(all.map((entry) => entry.kind)).toEqual(["tree", "blobs"]);
    expect(all.find((entry) => entry.kind === "blobs")).toMatchObject({ files: before.length - 2 });
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it("a store emptied under a run (a clear beside it) costs a store again, never a missing file", async () => {
    const store = join(temporaryDir("loclab-blob-store-"), "blobs");
    const content = Buffer.from("print('x')\n");
    const key = { oid: gitBlobId(content), executable: false };
    const target = (name: string) => join(store, "..", name);
    expect(await placeBlob(store, target("a.py"), key, () => content)).toBe("stored");
    expect(await placeBlob(store, target("b.py"), key, () => content)).toBe("linked");
    rmSync(store, { recursive: true, force: true });
    expect(await placeBlob(store, target("c.py"), key, () => content)).toBe("stored");
    for (const name of ["a.py", "b.py", "c.py"]) expect(readFileSync(target(name))).toEqual(content);
    expect(lstatSync(target("c.py")).nlink).toBe(2);
  });

  it("a shuffled copy through the store has the bytes of one written without it", async () => {
    const cacheDir = temporaryDir("loclab-blob-cache-");
    const workspace = await materializeWorkspace({ instance: instance(second), mirrors, cacheDir });
    const out = temporaryDir("loclab-blob-shuffle-");
    for (const [name, blobStore] of [
      ["plain", undefined],
      ["stored", join(cacheDir, "blobs")],
    ] as const)
      await shuffleRepository({
        repo: workspace.root,
        out: join(out, name),
        mapping: join(out, `${name}.json`),
        seed: 3,
        ...(blobStore ? { blobStore } : {}),
      });
    expect(snapshot(join(out, "stored"))).toEqual(snapshot(join(out, "plain")));
    expect(existsSync(join(cacheDir, "blobs"))).toBe(true);
    // A file the shuffle copies byte for byte (bin/run.sh, under its shuffled name) is the tree's own inode.
    const mapping = JSON.parse(readFileSync(join(out, "stored.json"), "utf8")) as { files: Record<string, string> };
    const script = mapping.files["bin/run.sh"] as string;
    expect(script).toBeDefined();
    expect(lstatSync(join(out, "stored", script)).ino).toBe(lstatSync(join(workspace.root, "bin/run.sh")).ino);
    expect(lstatSync(join(out, "plain", script)).ino).not.toBe(lstatSync(join(workspace.root, "bin/run.sh")).ino);
  });
});
