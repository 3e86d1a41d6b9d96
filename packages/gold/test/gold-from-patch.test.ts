import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PatchParseError, goldFromPatch, parsePatch, symbolFromHunkSection } from "../src/index.js";

const gold = (patch: string) => goldFromPatch(patch, { instanceId: "t__t-1" });

describe("spans (docs/definitions.md §2)", () => {
  it("makes one span per maximal run of removed lines, in pre-image numbers", () => {
    const patch = [
      "--- a/m.py",
      "+++ b/m.py",
      "@@ -10,9 +10,6 @@ def f(x):",
      " a", // 10
      "-b", // 11
      "-c", // 12
      "+C",
      " d", // 13
      "-e", // 14
      " f", // 15
      "-g", // 16
      "+G",
      "-h", // 17: adjacent in the pre-image to 16, so the same run despite the + between
      " i", // 18
      "",
    ].join("\n");
    expect(gold(patch).spans.map(({ startLine, endLine, kind }) => [startLine, endLine, kind])).toEqual([
      [11, 12, "removed"],
      [14, 14, "removed"],
      [16, 17, "removed"],
    ]);
  });

  it("anchors a pure insertion on the pre-image line before it, and on line 1 at the top", () => {
    const middle = "--- a/m.py\n+++ b/m.py\n@@ -4,2 +4,3 @@\n x\n+new\n y\n";
    expect(gold(middle).spans).toEqual([{ path: "m.py", startLine: 4, endLine: 4, kind: "insertion", hunk: 0 }]);
    const top = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n+import os\n x\n y\n";
    expect(gold(top).spans).toEqual([{ path: "m.py", startLine: 1, endLine: 1, kind: "insertion", hunk: 0 }]);
    const intoEmpty = "--- a/m.py\n+++ b/m.py\n@@ -0,0 +1 @@\n+x = 1\n";
    expect(gold(intoEmpty).spans).toEqual([{ path: "m.py", startLine: 1, endLine: 1, kind: "insertion", hunk: 0 }]);
    const zeroCountAfter = "--- a/m.py\n+++ b/m.py\n@@ -7,0 +8,2 @@\n+a\n+b\n";
    expect(gold(zeroCountAfter).spans[0]).toMatchObject({ startLine: 7, endLine: 7, kind: "insertion" });
  });

  it("keeps added lines per hunk (FGL y+) and the hunk text for display", () => {
    const patch = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@ class A:\n a\n-b\n+B\n c\n@@ -20,1 +20,2 @@\n z\n+zz\n";
    const result = gold(patch);
    expect(result.addedLines).toEqual([
      { path: "m.py", hunk: 0, lines: ["B"] },
      { path: "m.py", hunk: 1, lines: ["zz"] },
    ]);
    expect(result.hunks[0]).toMatchObject({
      path: "m.py",
      oldStart: 1,
      oldLines: 3,
      section: "class A:",
      text: " a\n-b\n+B\n c",
    });
    expect(result.symbols).toEqual([
      { path: "m.py", name: "A", kind: "class", hunk: 0, approximate: true, source: "hunk-header" },
    ]);
  });

  it("reads a hunk by its counts, so removed lines that look like headers stay content", () => {
    const patch =
      "--- a/s.sql\n+++ b/s.sql\n@@ -1,2 +1,2 @@\n--- a comment\n-diff --git x\n+++ b/not-a-header\n+@@ also content\n";
    const result = gold(patch);
    expect(result.files).toEqual(["s.sql"]);
    expect(result.spans).toEqual([{ path: "s.sql", startLine: 1, endLine: 2, kind: "removed", hunk: 0 }]);
    expect(result.addedLines[0]?.lines).toEqual(["++ b/not-a-header", "@@ also content"]);
  });
});

describe("file statuses", () => {
  it("an empty patch gives empty gold", () => {
    for (const patch of ["", "\n", "  \n\n"]) {
      expect(gold(patch)).toMatchObject({ files: [], created: [], spans: [], hunks: [] });
    }
  });

  it("reads quoted paths with octal UTF-8 escapes and paths with spaces", () => {
    const patch = [
      'diff --git "a/docs/caf\\303\\251 notes.md" "b/docs/caf\\303\\251 notes.md"',
      "index 1111111..2222222 100644",
      '--- "a/docs/caf\\303\\251 notes.md"',
      '+++ "b/docs/caf\\303\\251 notes.md"',
      "@@ -1 +1 @@",
      "-old",
      "+new",
      "diff --git a/my dir/x.py b/my dir/x.py",
      "old mode 100644",
      "new mode 100755",
      "",
    ].join("\n");
    const files = parsePatch(patch);
    expect(files.map((file) => [file.oldPath, file.status])).toEqual([
      ["docs/café notes.md", "modified"],
      ["my dir/x.py", "modified"],
    ]);
    expect(files[1]).toMatchObject({ oldMode: "100644", newMode: "100755", hunks: [] });
  });

  it("reads a plain (non-git) unified diff with timestamps", () => {
    const patch = "--- a/pkg/x.py\t2024-01-01 00:00:00\n+++ b/pkg/x.py\t2024-01-02 00:00:00\n@@ -3 +3 @@\n-a\n+b\n";
    expect(gold(patch)).toMatchObject({ files: ["pkg/x.py"], spans: [{ startLine: 3, endLine: 3 }] });
  });
});

describe("binary patches (built with real git)", () => {
  const repo = mkdtempSync(join(tmpdir(), "loclab-binary-"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: repo, encoding: "utf8" });
  git("init", "-q");
  writeFileSync(join(repo, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 0, 255]));
  writeFileSync(join(repo, "app.py"), "def main():\n    return 1\n");
  git("add", ".");
  git("commit", "-qm", "base");
  writeFileSync(join(repo, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9, 0, 0, 254, 7]));
  writeFileSync(join(repo, "app.py"), "def main():\n    return 2\n");
  writeFileSync(join(repo, "new.bin"), Buffer.from([0, 1, 0, 2]));
  git("add", ".");

  it("flags `GIT binary patch` files, skips their data, and still reads the text files", () => {
    const patch = git("diff", "--cached", "--binary");
    expect(patch).toContain("GIT binary patch");
    const result = gold(patch);
    expect(result.files).toEqual(["app.py", "logo.png"]);
    expect(result.created).toEqual(["new.bin"]);
    expect(result.binary).toEqual(["logo.png", "new.bin"]);
    expect(result.spans).toEqual([{ path: "app.py", startLine: 2, endLine: 2, kind: "removed", hunk: 0 }]);
  });

  it("flags `Binary files … differ` files", () => {
    const patch = git("diff", "--cached");
    expect(patch).toContain("Binary files a/logo.png and b/logo.png differ");
    const result = gold(patch);
    expect(result.files).toEqual(["app.py", "logo.png"]);
    expect(result.binary).toEqual(["logo.png", "new.bin"]);
  });
});

describe("garbage is an error naming the instance and the offending line", () => {
  const cases: [string, string, number, RegExp][] = [
    ["prose", "hello world\nthis is not a diff\n", 1, /expected a file header/],
    ["bad hunk header", "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2\n a\n", 3, /malformed hunk header/],
    [
      "hunk shorter than its counts",
      "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n",
      7,
      /ends 1 old and 1 new lines short/,
    ],
    ["stray line inside a hunk", "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n*b\n c\n", 5, /expected a hunk line/],
    ["--- without +++", "diff --git a/x.py b/x.py\n--- a/x.py\n@@ -1 +1 @@\n", 3, /expected "\+\+\+ " after "--- "/],
    ["unknown extended header", "diff --git a/x.py b/x.py\nsomething odd\n", 2, /unexpected line in a file header/],
    ["too many lines for the counts", "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n+c\n", 6, /expected a file header/],
    // Issue 12, item 11: each gave wrong gold with exit 0 before.
    [
      "old lines starting at line 0",
      "--- a/x.py\n+++ b/x.py\n@@ -0,7 +242,7 @@\n a\n b\n c\n d\n e\n f\n g\n",
      3,
      /a hunk of 7 old line\(s\) cannot start at line 0/,
    ],
    ["cut off after diff --git", "diff --git a/x.py b/x.py\n", 1, /a "diff --git" header with nothing after it/],
    [
      "cut off after diff --git and index",
      "diff --git a/x.py b/x.py\nindex 83db48f..bf269f4 100644\n",
      1,
      /nothing after it .*is the patch cut off\?/,
    ],
    [
      "cut off after ---/+++ (git)",
      "diff --git a/x.py b/x.py\nindex 83db48f..bf269f4 100644\n--- a/x.py\n+++ b/x.py\n",
      5,
      /expected a hunk .* after the "---"\/"\+\+\+" lines/,
    ],
    [
      "a start past 2^53",
      "--- a/x.py\n+++ b/x.py\n@@ -100000000000000000000,1 +1,1 @@\n-a\n+b\n",
      3,
      /the old start 100000000000000000000 is too large/,
    ],
    [
      "a repeated hunk",
      "--- a/x.py\n+++ b/x.py\n@@ -3,1 +3,1 @@\n-a\n+b\n@@ -3,1 +3,1 @@\n-a\n+b\n",
      6,
      /the hunk overlaps or precedes the one at patch line 3 \(old lines 3–3\)/,
    ],
    [
      "a path that climbs",
      "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
      1,
      /a path with a "\.\." segment, "\.\.\/\.\.\/etc\/passwd"/,
    ],
    [
      "a bare CR in a header",
      "diff --git a/x.py b/x.py\r--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
      2,
      /unexpected line in a file header/,
    ],
    [
      "bare --- a / +++ b",
      "--- a\n+++ b\n",
      3,
      /expected a hunk .* after the "---"\/"\+\+\+" lines: is the patch cut off\?/,
    ],
  ];
  for (const [name, patch, line, reason] of cases) {
    it(name, () => {
      let caught: unknown;
      try {
        goldFromPatch(patch, { instanceId: "owner__repo-42" });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PatchParseError);
      const error = caught as PatchParseError;
      expect(error.instanceId).toBe("owner__repo-42");
      expect(error.patchLine).toBe(line);
      expect(error.message).toMatch(new RegExp(`^owner__repo-42: patch line ${line}: `));
      expect(error.message).toMatch(reason);
    });
  }
});

describe("symbolFromHunkSection", () => {
  it("names Python, JavaScript, Go and Rust definitions and ignores the rest", () => {
    expect(symbolFromHunkSection("def _cstack(left, right):")).toEqual({ name: "_cstack", kind: "function" });
    expect(symbolFromHunkSection("    async def fetch(self):")).toEqual({ name: "fetch", kind: "function" });
    expect(symbolFromHunkSection("class QuerySet(AltersData):")).toEqual({ name: "QuerySet", kind: "class" });
    expect(symbolFromHunkSection("export async function load(path: string) {")).toEqual({
      name: "load",
      kind: "function",
    });
    expect(symbolFromHunkSection("func (s *Server) Handle(ctx context.Context) error {")).toEqual({
      name: "Handle",
      kind: "function",
    });
    expect(symbolFromHunkSection("pub fn handle(&self) -> Result<()> {")).toEqual({ name: "handle", kind: "function" });
    expect(symbolFromHunkSection("impl Profiler {")).toEqual({ name: "Profiler", kind: "impl" });
    expect(symbolFromHunkSection("import (")).toBeUndefined();
    expect(symbolFromHunkSection("")).toBeUndefined();
  });
});
