import { loadBenchmark } from "@loclab/datasets";
import { type FilePatch, parsePatch } from "@loclab/gold";
import { parsePatch as jsdiffParsePatch } from "diff";
import { describe, expect, it } from "vitest";

// An outside reference for the patch parser: jsdiff (`diff` on npm, the most used JavaScript
// diff library) must read every real gold patch into the same files, hunks and lines.
// One representational difference is normalized: for an empty pre-image range
// (`@@ -0,0 +1,3 @@`) jsdiff stores oldStart + 1, we keep the header's number.

type Shape = { oldPath: string | null; newPath: string | null; hunks: { header: number[]; lines: string[] }[] };

function ours(files: FilePatch[]): Shape[] {
  const marker = { context: " ", removed: "-", added: "+" } as const;
  return files
    .filter((file) => !file.binary && file.hunks.length > 0)
    .map((file) => ({
      oldPath: file.oldPath,
      newPath: file.newPath,
      hunks: file.hunks.map((hunk) => ({
        header: [
          hunk.oldStart + (hunk.oldLines === 0 ? 1 : 0),
          hunk.oldLines,
          hunk.newStart + (hunk.newLines === 0 ? 1 : 0),
          hunk.newLines,
        ],
        lines: hunk.lines.map((line) => `${marker[line.kind]}${line.text}`),
      })),
    }));
}

function theirs(patch: string): Shape[] {
  const strip = (name: string | undefined, prefix: string) =>
    name === undefined || name === "/dev/null" ? null : name.startsWith(prefix) ? name.slice(prefix.length) : name;
  return jsdiffParsePatch(patch)
    .filter((file) => file.hunks.length > 0)
    .map((file) => ({
      oldPath: strip(file.oldFileName, "a/"),
      newPath: strip(file.newFileName, "b/"),
      hunks: file.hunks.map((hunk) => ({
        header: [hunk.oldStart, hunk.oldLines, hunk.newStart, hunk.newLines],
        // An empty context line whose space was stripped is read by us as context " ".
        lines: hunk.lines.filter((line) => !line.startsWith("\\")).map((line) => (line === "" ? " " : line)),
      })),
    }));
}

describe("parsePatch agrees with jsdiff", () => {
  it.each(["lite", "verified", "locbench"])("on every %s gold patch", async (name) => {
    const { instances } = await loadBenchmark(name);
    const disagreements = instances.filter(
      (row) => JSON.stringify(ours(parsePatch(row.patch))) !== JSON.stringify(theirs(row.patch)),
    );
    expect(disagreements.map((row) => row.instance_id)).toEqual([]);
    expect(instances.length).toBeGreaterThanOrEqual(300);
  });
});
