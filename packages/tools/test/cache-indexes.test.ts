import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CONTENT_PACK_FILE,
  connectedTree,
  importGraphFile,
  loadContentPack,
  materializeWorkspace,
  openWorkspace,
  searchCode,
  viewFile,
  workspaceCachePath,
} from "../src/index.js";
import { git, makeGitRepo, temporaryDir } from "./helpers.js";

// What a cached tree keeps beside itself (issue 18): the content pack and the import graph.
// Every answer from them is checked against the same workspace read from the tree itself.
const mirrors = temporaryDir("loclab-mirrors-");
const origin = join(temporaryDir("loclab-origin-"), "origin");
const [commit] = makeGitRepo(origin, [
  {
    "pkg/__init__.py": "from .core import VALUE\n",
    "pkg/core.py": "from . import util\nfrom pkg.sub import deep\nVALUE = 'value'\n",
    "pkg/util.py": "import os\ndef helper():\n    return VALUE_HELPER\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": "from ..util import helper\nimport json\n",
    "README.md": "VALUE is documented here\nsecond line\n",
    "data.bin": Buffer.from([0x56, 0x41, 0x4c, 0x55, 0x45, 0x00, 0x01]),
    "link.py": { symlink: "pkg/util.py" },
    "big.txt": `${"VALUE ".repeat(200)}\n`,
  },
]) as [string];
git(mirrors, ["clone", "-q", "--bare", origin, join(mirrors, "acme__repo.git")]);
const instance = { repo: "acme/repo", base_commit: commit, instance_id: "acme__repo-1" };

describe("the content pack of a cached tree", () => {
  it("is written at materialization and answers reads and searches exactly as the tree does", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const packed = await materializeWorkspace({ instance, mirrors, cacheDir });
    const folder = workspaceCachePath(cacheDir, "acme/repo", commit);
    expect(existsSync(join(folder, CONTENT_PACK_FILE))).toBe(true);
    // The same files, read from a plain copy of the tree with no pack.
    const copy = join(temporaryDir("loclab-copy-"), "repo");
    cpSync(packed.root, copy, { recursive: true, verbatimSymlinks: true });
    const plain = await openWorkspace({ root: copy, files: "walk" });
    for (const query of ["VALUE", "helper", "import", "second line"]) {
      for (const ignoreCase of [false, true]) {
        const a = await searchCode(packed, { query, ignoreCase, maxHits: 500 });
        const b = await searchCode(plain, { query, ignoreCase, maxHits: 500 });
        expect(a).toEqual(b);
      }
    }
    expect(await viewFile(packed, { path: "pkg/core.py" })).toEqual(await viewFile(plain, { path: "pkg/core.py" }));
    expect(await viewFile(packed, { path: "link.py" })).toMatchObject({
      status: "shown",
      symlinkTarget: "pkg/util.py",
    });
    const stats = packed.stats();
    expect(stats.packReads).toBeGreaterThanOrEqual(7);
    expect(stats.diskReads).toBe(1); // link.py only: links are not packed, they are followed with the confinement check
    let textBytes = 0;
    for (const path of await plain.paths()) {
      const read = await plain.read(path);
      if (read.kind === "text" && (await plain.entry(path))?.kind === "file") textBytes += read.size;
    }
    expect(stats.packBytes).toBe(textBytes);
    expect((await packed.read("data.bin")).kind).toBe("binary");
  });

  it("serves a file over a smaller workspace limit as large, and a tree opened by its path uses the pack too", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const first = await materializeWorkspace({ instance, mirrors, cacheDir });
    const small = await materializeWorkspace({ instance, mirrors, cacheDir, limits: { maxFileBytes: 100 } });
    expect(await small.read("big.txt")).toMatchObject({
      kind: "large",
      size: 1201,
      absolutePath: join(first.root, "big.txt"),
    });
    const byPath = await openWorkspace({ root: first.root });
    expect(byPath).toMatchObject({ source: "git-commit", repo: "acme/repo", commit });
    expect((await searchCode(byPath, { query: "VALUE" })).totalHits).toBe(
      (await searchCode(first, { query: "VALUE" })).totalHits,
    );
    expect(byPath.stats().diskReads).toBe(0);
  });

  it("reads a file on its own from the pack until a search needs the contents whole, and refuses a pack replaced since it was loaded", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const packed = await materializeWorkspace({ instance, mirrors, cacheDir });
    // The reference: a plain copy of the tree, which has no pack (the tree opened by its path would use it).
    const copy = join(temporaryDir("loclab-copy-"), "repo");
    cpSync(packed.root, copy, { recursive: true, verbatimSymlinks: true });
    const plain = await openWorkspace({ root: copy, files: "walk" });
    // No search yet: each file is one positioned read of the pack, and the contents stay on disk.
    expect(await viewFile(packed, { path: "pkg/core.py" })).toEqual(await viewFile(plain, { path: "pkg/core.py" }));
    expect(await packed.read("README.md")).toEqual(await plain.read("README.md"));
    expect(packed.stats()).toMatchObject({ packReads: 2, diskReads: 0, packBytes: 0 });
    // A case-insensitive search scans every file: the contents are read whole, with the same answers.
    expect(await searchCode(packed, { query: "value", ignoreCase: true, maxHits: 500 })).toEqual(
      await searchCode(plain, { query: "value", ignoreCase: true, maxHits: 500 }),
    );
    expect(packed.stats().packBytes).toBeGreaterThan(0);
    // A pack rebuilt under a workspace that loaded the old one: its offsets no longer hold.
    const fresh = await materializeWorkspace({ instance, mirrors, cacheDir });
    expect((await fresh.read("pkg/util.py")).kind).toBe("text");
    const file = join(workspaceCachePath(cacheDir, "acme/repo", commit), CONTENT_PACK_FILE);
    const bytes = readFileSync(file);
    rmSync(file);
    writeFileSync(file, bytes);
    await expect(fresh.read("pkg/sub/deep.py")).rejects.toThrow(
      `${file}: the content pack changed on disk since it was loaded; open the workspace again`,
    );
  });

  it("a damaged pack is an error that names the file and says how to rebuild it", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    await materializeWorkspace({ instance, mirrors, cacheDir });
    const file = join(workspaceCachePath(cacheDir, "acme/repo", commit), CONTENT_PACK_FILE);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 10));
    expect(() => loadContentPack(file)).toThrow(`${file}: truncated content pack`);
    writeFileSync(file, Buffer.concat([Buffer.from("NOTAPACK"), bytes.subarray(8)]));
    expect(() => loadContentPack(file)).toThrow(/bad magic\); remove it to rebuild it/);
  });
});

describe("case-insensitive search over a pack", () => {
  it("finds what the per-file search finds, in files with characters whose lower case changes length or is ASCII", async () => {
    const unicodeMirrors = temporaryDir("loclab-mirrors-");
    const unicodeOrigin = join(temporaryDir("loclab-origin-"), "origin");
    const [unicodeCommit] = makeGitRepo(unicodeOrigin, [
      {
        "a.py": "İSTANBUL = 1\nistanbul = 2\n",
        "b.txt": "\u212aELVIN, the sign only\n",
        "f.txt": "\u0130 alone\n",
        "c.txt": "STRASSE ẞ straße Größe\n",
        "d.txt": "ПРИВЕТ привет Hello HELLO\n",
        "e.txt": "plain ascii KELVIN text\n",
      },
    ]) as [string];
    git(unicodeMirrors, ["clone", "-q", "--bare", unicodeOrigin, join(unicodeMirrors, "acme__uni.git")]);
    const packed = await materializeWorkspace({
      instance: { repo: "acme/uni", base_commit: unicodeCommit },
      mirrors: unicodeMirrors,
      cacheDir: temporaryDir("loclab-cache-"),
    });
    const copy = join(temporaryDir("loclab-copy-"), "uni");
    cpSync(packed.root, copy, { recursive: true });
    const plain = await openWorkspace({ root: copy, files: "walk" });
    for (const query of [
      "i̇stanbul",
      "istanbul",
      "kelvin",
      "KELVIN",
      "strasse",
      "straße",
      "größe",
      "привет",
      "hello",
      "i",
      "k",
    ]) {
      const a = await searchCode(packed, { query, ignoreCase: true, maxHits: 500 });
      const b = await searchCode(plain, { query, ignoreCase: true, maxHits: 500 });
      expect(a, query).toEqual(b);
    }
    // Found only through the lower case of U+212A and of U+0130.
    expect((await searchCode(packed, { query: "kelvin", ignoreCase: true })).hits.map((hit) => hit.path)).toEqual([
      "b.txt",
      "e.txt",
    ]);
    expect((await searchCode(packed, { query: "i", ignoreCase: true })).hits.map((hit) => hit.path)).toContain("f.txt");
    expect(packed.stats().packReads).toBeGreaterThan(0);
  });
});

describe("the stored import graph of a cached tree", () => {
  it("is built once, stored beside the tree, and loaded by every later workspace with the same answers", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const folder = workspaceCachePath(cacheDir, "acme/repo", commit);
    const first = await materializeWorkspace({ instance, mirrors, cacheDir });
    const built = await first.importGraph();
    expect(first.stats().importGraphSource).toBe("built");
    expect(existsSync(importGraphFile(folder))).toBe(true);
    const second = await materializeWorkspace({ instance, mirrors, cacheDir });
    const loaded = await second.importGraph();
    expect(second.stats().importGraphSource).toBe("cache");
    expect(loaded.files).toEqual(built.files);
    for (const file of built.files) {
      expect(loaded.importsOf(file)).toEqual(built.importsOf(file));
      expect(loaded.importersOf(file)).toEqual(built.importersOf(file));
      expect(loaded.externalOf(file)).toEqual(built.externalOf(file));
    }
    expect(built.importsOf("pkg/core.py")).toEqual(["pkg/sub/deep.py", "pkg/util.py"]);
    // connected_tree answers from the stored graph without parsing anything.
    const third = await materializeWorkspace({ instance, mirrors, cacheDir });
    const tree = await connectedTree(third, { path: "pkg/util.py", depth: 2 });
    const reference = await connectedTree(first, { path: "pkg/util.py", depth: 2 });
    expect(tree).toEqual(reference);
    expect(third.stats().diskReads + third.stats().packReads).toBe(0);
  });

  it("a stored graph made by another parser, or for another listing, or damaged, is rebuilt", async () => {
    const cacheDir = temporaryDir("loclab-cache-");
    const folder = workspaceCachePath(cacheDir, "acme/repo", commit);
    const first = await materializeWorkspace({ instance, mirrors, cacheDir });
    await first.importGraph();
    const file = importGraphFile(folder);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    for (const changed of [
      { ...stored, fingerprint: "0000000000000000" },
      { ...stored, files: stored.files.slice(1) },
      "{not json",
    ]) {
      writeFileSync(file, typeof changed === "string" ? changed : JSON.stringify(changed));
      const again = await materializeWorkspace({ instance, mirrors, cacheDir });
      await again.importGraph();
      expect(again.stats().importGraphSource).toBe("built");
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
        ...stored,
        stats: { ...stored.stats, buildMs: expect.any(Number) },
      });
    }
  });
});
