import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { folderUse } from "../src/index.js";

// The disk use `loclab evaluate images ls` reports for the host caches. A cache folder can hold
// a base root being built, with the host's /proc mounted in it (a walk into it failed with
// EACCES on /proc/1/fdinfo): the walk stays on the folder's file system, as `du -x` does.
let work = "";
afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  work = "";
});

describe("folderUse", () => {
  it("counts file bytes at every level, entries at the top, and follows no symbolic link", async () => {
    work = mkdtempSync(join(tmpdir(), "loclab-folder-use-"));
    const cache = join(work, "cache");
    mkdirSync(join(cache, "a", "b"), { recursive: true });
    writeFileSync(join(cache, "top.whl"), "x".repeat(100));
    writeFileSync(join(cache, "a", "b", "deep.whl"), "y".repeat(250));
    writeFileSync(join(work, "outside"), "z".repeat(10_000));
    symlinkSync(join(work, "outside"), join(cache, "link"));
    symlinkSync(work, join(cache, "a", "loop"));
    expect(await folderUse(cache)).toEqual({ bytes: 350, entries: 3 });
    expect(await folderUse(join(work, "missing"))).toEqual({ bytes: 0, entries: 0 });
  });

  const root = process.getuid?.() === 0;
  it.skipIf(!root)("does not cross into a file system mounted inside (a root being built has /proc)", async () => {
    work = mkdtempSync(join(tmpdir(), "loclab-folder-use-"));
    const mounted = join(work, "root.partial-x", "proc");
    mkdirSync(mounted, { recursive: true });
    writeFileSync(join(work, "kept"), "k".repeat(40));
    execFileSync("mount", ["-t", "proc", "proc", mounted]);
    try {
      expect(await folderUse(work)).toEqual({ bytes: 40, entries: 2 });
    } finally {
      execFileSync("umount", [mounted]);
    }
  });
});
