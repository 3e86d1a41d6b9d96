import { type LoadedBenchmark, loadBenchmark } from "@loclab/datasets";
import { type GoldLocations, extractGold, goldFromPatch, parsePatch } from "@loclab/gold";
import { beforeAll, describe, expect, it } from "vitest";
import { readSharedJsonl } from "./helpers.js";

// Gold extraction over the real patches of the three bundled benchmarks (docs/definitions.md §2).
// Each edge case is checked on a real patch that has it; the instance ids were found by
// scanning the benchmarks, and the expected values read off the patches by hand.

let benchmarks: Record<"lite" | "verified" | "locbench", LoadedBenchmark>;
const patchOf = (name: keyof typeof benchmarks, id: string): string => {
  const instance = benchmarks[name].instances.find((row) => row.instance_id === id);
  if (!instance) throw new Error(`${id} not in ${name}`);
  return instance.patch;
};
const goldOf = (name: keyof typeof benchmarks, id: string): GoldLocations =>
  goldFromPatch(patchOf(name, id), { instanceId: id });

beforeAll(async () => {
  const [lite, verified, locbench] = await Promise.all([
    loadBenchmark("lite"),
    loadBenchmark("verified"),
    loadBenchmark("locbench"),
  ]);
  benchmarks = { lite, verified, locbench };
});

describe("all 1,360 gold patches", () => {
  it("extract with no failure", () => {
    let total = 0;
    for (const benchmark of Object.values(benchmarks)) {
      const { golds, failures } = extractGold(benchmark.instances);
      expect(failures).toEqual([]);
      expect(golds).toHaveLength(benchmark.instances.length);
      total += golds.length;
    }
    expect(total).toBe(1360);
  });

  it("every Lite instance has exactly one gold file", () => {
    const { golds } = extractGold(benchmarks.lite.instances);
    expect(golds.filter((gold) => gold.files.length !== 1).map((gold) => gold.instanceId)).toEqual([]);
  });

  it("Lite gold files equal LocAgent's gt_file_changes files for all 300 instances", () => {
    type LocAgentRow = { instance_id: string; meta_data: { gt_file_changes: { file: string }[] } };
    const locagent = readSharedJsonl<LocAgentRow>("localization/locagent/claude35-lite.jsonl");
    expect(locagent).toHaveLength(300);
    const ours = new Map(extractGold(benchmarks.lite.instances).golds.map((gold) => [gold.instanceId, gold.files]));
    const mismatches = locagent.filter((row) => {
      const theirs = row.meta_data.gt_file_changes.map((change) => change.file).sort();
      return JSON.stringify(theirs) !== JSON.stringify([...(ours.get(row.instance_id) ?? [])].sort());
    });
    expect(mismatches.map((row) => row.instance_id)).toEqual([]);
  });

  it("every span lies inside its hunk's pre-image range", () => {
    for (const benchmark of Object.values(benchmarks)) {
      for (const gold of extractGold(benchmark.instances).golds) {
        for (const span of gold.spans) {
          const hunk = gold.hunks[span.hunk];
          expect(hunk?.path).toBe(span.path);
          if (!hunk) continue;
          const first = Math.max(1, hunk.oldStart);
          const last = Math.max(first, hunk.oldStart + hunk.oldLines - 1);
          expect(span.startLine).toBeGreaterThanOrEqual(first);
          expect(span.endLine).toBeLessThanOrEqual(last);
        }
      }
    }
  });
});

describe("edge cases on real patches", () => {
  it("a single-line change (astropy__astropy-12907, Lite)", () => {
    const gold = goldOf("lite", "astropy__astropy-12907");
    expect(gold.files).toEqual(["astropy/modeling/separable.py"]);
    expect(gold.spans).toEqual([
      { path: "astropy/modeling/separable.py", startLine: 245, endLine: 245, kind: "removed", hunk: 0 },
    ]);
    expect(gold.addedLines).toEqual([
      {
        path: "astropy/modeling/separable.py",
        hunk: 0,
        lines: ["        cright[-right.shape[0]:, -right.shape[1]:] = right"],
      },
    ]);
    expect(gold.symbols).toMatchObject([{ name: "_cstack", kind: "function", approximate: true }]);
  });

  it("a rename keeps the pre-image path as the gold file (hyeneung__tech-blog-hub-site-49, Loc-Bench)", () => {
    const gold = goldOf("locbench", "hyeneung__tech-blog-hub-site-49");
    const from = "serverless/crawler/internal/db/opensearch.go";
    const to = "serverless/crawler/internal/db/elasticsearch.go";
    expect(gold.renamed).toEqual([{ from, to }]);
    expect(gold.files).toContain(from);
    expect(gold.files).not.toContain(to);
    expect(gold.created).toEqual([]);
    const renamed = parsePatch(patchOf("locbench", "hyeneung__tech-blog-hub-site-49")).find(
      (file) => file.status === "renamed",
    );
    expect(renamed).toMatchObject({ oldPath: from, newPath: to, similarity: 86 });
    // Spans of the renamed file are in its pre-image: the first hunk is @@ -14,8 +14,8 @@.
    expect(gold.spans.filter((span) => span.path === from)[0]).toMatchObject({ startLine: 17 });
    // Added lines are filed under the post-image path.
    expect(gold.addedLines.some((block) => block.path === to)).toBe(true);
    expect(gold.files).toHaveLength(15);
  });

  it("a deleted file is gold, with its whole pre-image as one span (ctc-oss__fapolicy-analyzer-809)", () => {
    const gold = goldOf("locbench", "ctc-oss__fapolicy-analyzer-809");
    const path = "crates/daemon/src/profiler.service";
    expect(gold.deleted).toEqual([path]);
    expect(gold.files).toContain(path);
    expect(gold.spans.filter((span) => span.path === path)).toEqual([
      { path, startLine: 1, endLine: 12, kind: "removed", hunk: gold.spans.find((span) => span.path === path)?.hunk },
    ]);
  });

  it("new files are recorded as created, not gold (mesonbuild__meson-11366; astropy__astropy-13398, Verified)", () => {
    const meson = goldOf("locbench", "mesonbuild__meson-11366");
    expect(meson.created).toEqual([
      "docs/markdown/snippets/meson_install_drop_privs.md",
      "docs/markdown/snippets/meson_install_elevate.md",
    ]);
    for (const created of meson.created) {
      expect(meson.files).not.toContain(created);
      expect(meson.spans.some((span) => span.path === created)).toBe(false);
    }
    const astropy = goldOf("verified", "astropy__astropy-13398");
    expect(astropy.created).toEqual(["astropy/coordinates/builtin_frames/itrs_observed_transforms.py"]);
    expect(astropy.files).toHaveLength(3);
    // The created file's added lines still count for FGL's y+.
    expect(astropy.addedLines.some((block) => block.path === astropy.created[0])).toBe(true);
  });

  it("`\\ No newline at end of file` is read and does not shift lines (pm4-graders__3ES-72)", () => {
    const patch = patchOf("locbench", "pm4-graders__3ES-72");
    const gitignore = parsePatch(patch).find((file) => file.oldPath === ".gitignore");
    expect(gitignore?.hunks[0]?.lines.at(-1)).toMatchObject({
      text: "/cv/Models/__pycache__/",
      noNewlineAtEnd: true,
      oldLine: 9,
    });
    const gold = goldOf("locbench", "pm4-graders__3ES-72");
    expect(gold.spans.filter((span) => span.path === ".gitignore")).toEqual([
      { path: ".gitignore", startLine: 7, endLine: 7, kind: "insertion", hunk: 0 },
    ]);
  });

  it("CRLF content lines keep their line numbers and text (modin-project__modin-3438)", () => {
    const gold = goldOf("locbench", "modin-project__modin-3438");
    expect(gold.files).toEqual(["docs/troubleshooting.rst", "modin/backends/pandas/parsers.py"]);
    expect(gold.spans[0]).toEqual({
      path: "docs/troubleshooting.rst",
      startLine: 74,
      endLine: 74,
      kind: "insertion",
      hunk: 0,
    });
    expect(gold.addedLines[0]?.lines[0]).toBe("Importing heterogeneous data by ``read_csv``\r");
  });

  it("a patch written wholly with CRLF line ends parses the same as with LF", () => {
    const lf = patchOf("verified", "astropy__astropy-13398");
    const crlf = lf.replace(/\n/g, "\r\n");
    const a = goldFromPatch(lf, { instanceId: "lf" });
    const b = goldFromPatch(crlf, { instanceId: "crlf" });
    expect(b.files).toEqual(a.files);
    expect(b.created).toEqual(a.created);
    expect(b.spans).toEqual(a.spans);
  });

  it("a mode change with hunks stays a modified gold file (una-auxme__paf-565)", () => {
    const [file] = parsePatch(patchOf("locbench", "una-auxme__paf-565"));
    expect(file).toMatchObject({
      status: "modified",
      oldMode: "100644",
      newMode: "100755",
      oldPath: "code/perception/src/lidar_distance.py",
    });
    expect(goldOf("locbench", "una-auxme__paf-565").files).toEqual(["code/perception/src/lidar_distance.py"]);
  });

  it("several files in one patch keep patch order, with hunks indexed across files (first 3-file Verified patch)", () => {
    const multi = benchmarks.verified.instances.find((row) => (row.patch.match(/^diff --git /gm) ?? []).length === 3);
    expect(multi).toBeDefined();
    if (!multi) return;
    const gold = goldFromPatch(multi.patch, { instanceId: multi.instance_id });
    const headerFiles = [...multi.patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((match) => match[1]);
    expect(gold.files).toEqual(headerFiles);
    expect(gold.hunks).toHaveLength((multi.patch.match(/^@@ /gm) ?? []).length);
  });

  it("garbage in a real row names the instance and line", () => {
    const id = "astropy__astropy-12907";
    const broken = patchOf("lite", id).replace("@@ -242,7 +242,7 @@", "@@ -242,7 +242 7 @@");
    expect(() => goldFromPatch(broken, { instanceId: id })).toThrow(
      /^astropy__astropy-12907: patch line 4: malformed hunk header/,
    );
  });
});
