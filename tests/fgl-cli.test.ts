import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fglTaskWeights } from "@loclab/fgl-math";

// `loclab fgl weights` and `loclab fgl signal-test` (issue 16): JSON lines in, JSON lines out; a
// task that cannot be weighted is named and the others are still written.
const bin = resolve(import.meta.dirname, "../packages/cli/dist/bin.js");
const loclab = (...args: string[]) => execa(process.execPath, [bin, ...args], { reject: false, env: { LOCLAB_QUIET: "0" } });
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "loclab-fgl-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("loclab fgl weights", () => {
  it("weights each task, the teacher's line carrying the anchor; a bad task is named, the rest written, exit 1", async () => {
    const lines = [
      ...[-0.41, -0.45, -0.39, -0.47, -0.52].map((score, i) => ({ task: "astropy__astropy-12907", candidate: `k${i}`, score })),
      { task: "astropy__astropy-12907", candidate: "teacher", score: -0.43, teacher: true },
      { task: "bad-task", candidate: "a", score: -0.2, teacher: true },
      { task: "bad-task", candidate: "b", score: -0.3, teacher: true },
      { task: "small", candidate: "only", score: -1 },
      { task: "small", candidate: "teacher", score: -2, teacher: true },
    ];
    const file = join(root, "scores.jsonl");
    await writeFile(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    const result = await loclab("fgl", "weights", "--scores", file);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("task bad-task: anchorWeights: 2 candidates are marked as the teacher");
    const rows = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const first = rows.filter((row) => row.task === "astropy__astropy-12907");
    expect(first).toHaveLength(6);
    expect(Math.abs(first.reduce((sum, row) => sum + row.weight, 0) - 1)).toBeLessThan(1e-12);
    expect(first.every((row) => Math.abs(row.ess - 2) < 1e-9 && row.tau > 0)).toBe(true);
    // The same numbers as the library's.
    const library = fglTaskWeights(lines.slice(0, 6).map(({ candidate, score, ...rest }) => ({ candidate, score, ...("teacher" in rest ? { teacher: true } : {}) })));
    expect(first.map((row) => row.weight)).toEqual(library.rows.map((row) => row.weight));
    expect(first.find((row) => row.candidate === "teacher").weight).toBeGreaterThanOrEqual(0.5);
    expect(Object.keys(first[0]).sort()).toEqual(["candidate", "ess", "schemaVersion", "task", "tau", "weight"]);
    // Two candidates, n* = 2: uniform (τ null), then the teacher anchored.
    const small = rows.filter((row) => row.task === "small");
    expect(small.map((row) => [row.candidate, row.weight, row.tau, row.ess])).toEqual([
      ["only", 0.25, null, 2],
      ["teacher", 0.75, null, 2],
    ]);
  });

  it("refuses a line that is not a score record, naming file and line, and bad options", async () => {
    const file = join(root, "bad.jsonl");
    await writeFile(file, `${JSON.stringify({ task: "t", candidate: "a", score: -1 })}\n{"task": "t", "candidate": "b"}\n`);
    const result = await loclab("fgl", "weights", "--scores", file);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${file}:2`);
    expect(result.stdout).toBe("");
    const option = await loclab("fgl", "weights", "--scores", file, "--anchor", "2");
    expect(option.exitCode).toBe(1);
    expect(option.stderr).toContain("--anchor");
  });
});

describe("loclab fgl signal-test", () => {
  it("pairs T and S per task and prints the table with exact McNemar p", async () => {
    const rows = [];
    for (let i = 0; i < 10; i += 1) {
      rows.push({ task: `t${i}`, input: "T", firstEditAtPatchedLocation: i <= 4, anyHunkReproduced: i < 3, contextOverflow: i < 5, localizationSize: 1000 });
      rows.push({ task: `t${i}`, input: "S", firstEditAtPatchedLocation: i <= 2 || (i >= 5 && i <= 8), anyHunkReproduced: i < 3, contextOverflow: i < 2, localizationSize: 725 });
    }
    const file = join(root, "outcomes.jsonl");
    await writeFile(file, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
    const json = await loclab("fgl", "signal-test", "--outcomes", file, "--json");
    expect(json.exitCode, json.stderr).toBe(0);
    const table = JSON.parse(json.stdout);
    expect(table.tasks).toBe(10);
    expect(table.binary[0]).toMatchObject({ outcome: "firstEditAtPatchedLocation", b: 2, c: 4 });
    expect(table.binary[0].p).toBeCloseTo(0.6875, 12);
    expect(table.size.relativeChange).toBeCloseTo(-0.275, 12);
    const text = await loclab("fgl", "signal-test", "--outcomes", file);
    expect(text.stdout).toContain("|firstEditAtPatchedLocation|50.0 %|70.0 %|2|4|0.688|40.0 %|");
    expect(text.stdout).toContain("localization size: T 1000.0, S 725.0 (-27.5 %; median S/T 0.725)");
  });
});
