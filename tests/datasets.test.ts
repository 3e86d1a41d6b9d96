import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCHMARKS, loadBenchmark, resolveDataDir } from "@loclab/datasets";
import { describe, expect, it } from "vitest";
import { dataDir } from "./helpers.js";

const scratch = mkdtempSync(join(tmpdir(), "loclab-datasets-"));

describe("bundled benchmarks", () => {
  it.each([
    ["lite", 300, 12],
    ["verified", 500, 12],
    ["locbench", 560, 165],
  ] as const)("%s loads %i validated instances", async (name, count, minRepos) => {
    const benchmark = await loadBenchmark(name);
    expect(benchmark.instances).toHaveLength(count);
    expect(benchmark.expected).toBe(count);
    expect(benchmark.skipped).toEqual([]);
    expect(benchmark.path).toBe(join(dataDir, BENCHMARKS[name].file));
    expect(new Set(benchmark.instances.map((row) => row.repo)).size).toBeGreaterThanOrEqual(minRepos);
  });

  it("decodes Lite's JSON-encoded test lists into arrays", async () => {
    const { instances } = await loadBenchmark("lite");
    const first = instances[0];
    expect(first?.instance_id).toBe("astropy__astropy-12907");
    expect(first?.FAIL_TO_PASS).toEqual([
      "astropy/modeling/tests/test_separable.py::test_separable[compound_model6-result6]",
      "astropy/modeling/tests/test_separable.py::test_separable[compound_model9-result9]",
    ]);
    expect(instances.every((row) => Array.isArray(row.PASS_TO_PASS))).toBe(true);
  });

  it("keeps Loc-Bench's extra category field", async () => {
    const { instances } = await loadBenchmark("locbench");
    expect(new Set(instances.map((row) => row.category)).size).toBeGreaterThan(1);
  });
});

describe("user JSONL files", () => {
  const lines = readFileSync(join(dataDir, BENCHMARKS.verified.file), "utf8").trim().split("\n").slice(0, 3);

  it("loads any path in the same shape, named after the file", async () => {
    const path = join(scratch, "my-split.jsonl");
    writeFileSync(path, `${lines.join("\n")}\n`);
    const benchmark = await loadBenchmark(path);
    expect(benchmark.name).toBe("my-split");
    expect(benchmark.instances.map((row) => row.instance_id)).toEqual(
      lines.map((line) => (JSON.parse(line) as { instance_id: string }).instance_id),
    );
    expect(benchmark.expected).toBeUndefined();
  });

  it("names file and line of a bad row, or skips and reports it", async () => {
    const path = join(scratch, "bad.jsonl");
    const broken = JSON.stringify({ ...(JSON.parse(lines[1] ?? "{}") as object), repo: 42 });
    writeFileSync(path, `${lines[0]}\n${broken}\n${lines[2]}\n`);
    await expect(loadBenchmark(path)).rejects.toThrow(`${path}:2: `);
    await expect(loadBenchmark(path)).rejects.toThrow(/repo: Invalid input: expected string, received number/);
    const skipping = await loadBenchmark(path, { onBadLine: "skip" });
    expect(skipping.instances).toHaveLength(2);
    expect(skipping.skipped.map((error) => error.line)).toEqual([2]);
  });

  it("refuses duplicate instance ids, naming both lines", async () => {
    const path = join(scratch, "dup.jsonl");
    writeFileSync(path, `${lines[0]}\n${lines[1]}\n${lines[0]}\n`);
    await expect(loadBenchmark(path)).rejects.toThrow(/dup\.jsonl:3: duplicate instance_id .* \(first on line 1\)/);
    const skipping = await loadBenchmark(path, { onBadLine: "skip" });
    expect(skipping.instances).toHaveLength(2);
    expect(skipping.skipped[0]?.line).toBe(3);
  });

  it("says what it knows when the name is neither a benchmark nor a file", async () => {
    await expect(loadBenchmark("lit")).rejects.toThrow(
      /unknown benchmark "lit": not one of lite, verified, locbench and no file at /,
    );
  });
});

describe("resolveDataDir", () => {
  it("finds ../shared/data from the repository and honours an explicit folder", () => {
    expect(resolveDataDir()).toBe(dataDir);
    expect(resolveDataDir({ dataDir })).toBe(dataDir);
    expect(() => resolveDataDir({ dataDir: join(scratch, "nowhere") })).toThrow(/does not exist/);
  });

  it("reports a bundled benchmark missing from a data folder", async () => {
    await expect(loadBenchmark("lite", { dataDir: scratch })).rejects.toThrow(
      /benchmark lite: .*swebench\/lite\.jsonl is missing/,
    );
  });
});
