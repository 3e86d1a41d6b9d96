import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fglTaskWeights } from "@loclab/fgl-math";
import { dataDir, loclab } from "./helpers.js";

// `loclab fgl weights` and `loclab fgl signal-test` (issue 16): JSON lines in, JSON lines out; a
// task that cannot be weighted is named and the others are still written.
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
      ...[-0.41, -0.45, -0.39, -0.47, -0.52].map((score, i) => ({
        task: "astropy__astropy-12907",
        candidate: `k${i}`,
        score,
      })),
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
    const rows = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const first = rows.filter((row) => row.task === "astropy__astropy-12907");
    expect(first).toHaveLength(6);
    expect(Math.abs(first.reduce((sum, row) => sum + row.weight, 0) - 1)).toBeLessThan(1e-12);
    expect(first.every((row) => Math.abs(row.ess - 2) < 1e-9 && row.tau > 0)).toBe(true);
    // The same numbers as the library's.
    const library = fglTaskWeights(
      lines.slice(0, 6).map(({ candidate, score, ...rest }) => ({
        candidate,
        score,
        ...("teacher" in rest ? { teacher: true } : {}),
      })),
    );
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
    await writeFile(
      file,
      `${JSON.stringify({ task: "t", candidate: "a", score: -1 })}\n{"task": "t", "candidate": "b"}\n`,
    );
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
      rows.push({
        task: `t${i}`,
        input: "T",
        firstEditAtPatchedLocation: i <= 4,
        anyHunkReproduced: i < 3,
        contextOverflow: i < 5,
        localizationSize: 1000,
      });
      rows.push({
        task: `t${i}`,
        input: "S",
        firstEditAtPatchedLocation: i <= 2 || (i >= 5 && i <= 8),
        anyHunkReproduced: i < 3,
        contextOverflow: i < 2,
        localizationSize: 725,
      });
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

describe("loclab fgl candidates and records", () => {
  const trajectories = join(dataDir, "trajectories");
  it("candidates from a real SWE-agent trajectory: the teacher and its variants as JSON lines, a table on stdout", async () => {
    const out = join(root, "fgl", "candidates.jsonl");
    const result = await loclab(
      "fgl",
      "candidates",
      "--trajectories",
      join(trajectories, "swe-agent_gpt4_lite"),
      "--format",
      "swe-agent",
      "-b",
      "lite",
      "--tasks",
      "django__django-11099",
      "--out",
      out,
    );
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/1 tasks, \d+ candidates → .*candidates\.jsonl; reads recognised by open 1/);
    const lines = (await import("node:fs"))
      .readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      schemaVersion: 1,
      task: "django__django-11099",
      id: "teacher",
      teacher: true,
      kind: "teacher",
    });
    expect(lines[0].locations).toEqual([
      {
        path: "django/contrib/auth/validators.py",
        startLine: 1,
        endLine: 25,
        role: "edit",
        symbol: "ASCIIUsernameValidator",
      },
    ]);
    // The window it read (1-25) holds both hunks its patch edits, so the teacher is one location; the viewed code
    // alone has the same range (a duplicate, folded in); the edited code alone is the two hunks.
    expect(lines.map((line) => line.id)).toEqual(["teacher", "edited-only"]);
    expect(lines[0].provenance.duplicates).toEqual(["viewed-only"]);
    expect(lines[1].locations.map((l: { startLine: number; endLine: number }) => [l.startLine, l.endLine])).toEqual([
      [7, 13],
      [17, 23],
    ]);
  });

  it("bad input: an unknown format, a task not in the benchmark, a folder that is not there — one line each, exit 1", async () => {
    const format = await loclab(
      "fgl",
      "candidates",
      "--trajectories",
      trajectories,
      "--format",
      "nope",
      "-b",
      "lite",
      "--out",
      join(root, "x.jsonl"),
    );
    expect([format.exitCode, format.stderr.trim()]).toEqual([
      1,
      "loclab: error: --format nope: one of loclab, mini-swe-agent, swe-agent, autocoderover",
    ]);
    const task = await loclab(
      "fgl",
      "candidates",
      "--trajectories",
      join(trajectories, "swe-agent_gpt4_lite"),
      "--format",
      "swe-agent",
      "-b",
      "lite",
      "--tasks",
      "acme__nowhere-1",
      "--out",
      join(root, "x.jsonl"),
    );
    expect([task.exitCode, task.stderr.trim()]).toEqual([1, "loclab: error: --tasks: not in lite: acme__nowhere-1"]);
    const folder = await loclab(
      "fgl",
      "candidates",
      "--trajectories",
      join(root, "missing"),
      "--format",
      "swe-agent",
      "-b",
      "lite",
      "--out",
      join(root, "x.jsonl"),
    );
    expect(folder.exitCode).toBe(1);
    expect(folder.stderr).toContain(join(root, "missing"));
  });

  it("records: weights per task from candidates and scores, the table, the spread; error lines skipped", async () => {
    const candidates = join(root, "rec-candidates.jsonl");
    const scores = join(root, "rec-scores.jsonl");
    const cand = (id: string, teacher: boolean, path: string) => ({
      schemaVersion: 1,
      task: "t-1",
      id,
      kind: teacher ? "teacher" : "edited-only",
      teacher,
      locations: [{ path, startLine: 1, endLine: 9, role: "edit" }],
      provenance: { source: "test" },
    });
    await writeFile(
      candidates,
      [cand("teacher", true, "a.py"), cand("edited-only", false, "b.py"), cand("ghost", false, "c.py")]
        .map((c) => JSON.stringify(c))
        .join("\n") + "\n",
    );
    const score = (candidate: string, teacher: boolean, meanLogprob: number) => ({
      schemaVersion: 1,
      task: "t-1",
      candidate,
      teacher,
      score: meanLogprob - 0.001,
      meanLogprob,
      addedTokens: 10,
      ctxTokens: 100,
      extraReads: 0,
      promptTokens: 300,
      startsBefore: 0,
      runsPast: 0,
      shown: 1,
      omitted: 0,
      cut: false,
      lambdaCtx: 0.0097,
      lambdaReq: 0.017,
      settingsDigest: `d-${candidate}`,
      endpoint: "http://127.0.0.1:1/v1",
      model: "m",
      requestSeconds: 1,
      tokenizeSeconds: 0.1,
      scoredAt: "2026-12-01T00:00:00.000Z",
    });
    const error = {
      schemaVersion: 1,
      task: "t-1",
      candidate: "ghost",
      teacher: false,
      error: "t-1 / ghost: c.py does not exist at base commit",
      errorKind: "render",
      settingsDigest: "d-ghost",
      scoredAt: "2026-12-01T00:00:00.000Z",
    };
    await writeFile(
      scores,
      [score("teacher", true, -0.5), score("edited-only", false, -0.4), error]
        .map((s) => JSON.stringify(s))
        .join("\n") + "\n",
    );
    const out = join(root, "records.jsonl");
    const result = await loclab("fgl", "records", "--candidates", candidates, "--scores", scores, "--out", out);
    expect(result.exitCode).toBe(0);
    const records = (await import("node:fs"))
      .readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // K = 2 = n*: uniform softmax; both kept; the teacher gets β + its share of 1 − β.
    expect(records.map((r) => [r.candidate, r.weight])).toEqual([
      ["teacher", 0.75],
      ["edited-only", 0.25],
    ]);
    expect(records[0]).toMatchObject({
      target: "a.py:1-9 (edit)",
      provenance: { kind: "teacher", tau: null, model: "m" },
    });
    // Spread: sd(−0.5, −0.4) with n − 1 = 0.0707…; the top candidate is not the teacher's.
    expect(result.stderr).toContain("spread σ (median over 1 tasks) 0.0707 nats/token");
    expect(result.stderr).toContain("top candidate not the teacher's in 100.0 % of tasks");
    expect(result.stdout).toMatch(/\|t-1\|3\|2\|1\|/);
  });
});
