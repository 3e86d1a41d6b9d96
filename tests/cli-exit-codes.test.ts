import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { dataDir, loclab, scratch } from "./helpers.js";

// Exit codes that tell the truth, and the smaller defects of issue 12 (items 12, 13): each
// case here exited 0, or failed without naming the file, before.
const scratchDir = scratch("loclab-exit-");

describe("an empty benchmark is an error everywhere", () => {
  for (const [name, content] of [
    ["empty", ""],
    ["blank", "  \n\n \n"],
  ] as const) {
    it(`${name} file`, async () => {
      const path = join(scratchDir, `${name}.jsonl`);
      writeFileSync(path, content);
      for (const command of [
        ["gold", "--benchmark", path],
        ["mask", "--benchmark", path, "--out", join(scratchDir, `${name}-masked.jsonl`)],
      ]) {
        const result = await loclab(command);
        expect(result.exitCode, command.join(" ")).toBe(1);
        expect(result.stderr).toContain(`${path} has no instances (the file is empty or blank)`);
      }
    });
  }
});

describe("loclab score exits 1 when its numbers cannot be trusted", () => {
  const lite = join(dataDir, "localization/blagent/gpt-oss-lite.jsonl");

  it("Lite predictions scored against Verified: most ids unknown", async () => {
    const result = await loclab(["score", "-b", "verified", "-p", lite, "-f", "blagent"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /score: \d+ of 300 predictions are for ids not in verified: is this the benchmark the predictions were made on\?/,
    );
    expect(result.stdout).toContain("preset unified on verified");
    expect((await loclab(["score", "-b", "verified", "-p", lite, "-f", "blagent", "--allow-partial"])).exitCode).toBe(
      0,
    );
  });

  it("a gold patch that fails to parse", async () => {
    const rows = readFileSync(join(dataDir, "swebench/lite.jsonl"), "utf8").trim().split("\n").slice(0, 2);
    const broken = JSON.parse(rows[1] as string) as { patch: string };
    broken.patch = `${broken.patch}garbage after the diff\n`;
    const benchmark = join(scratchDir, "two.jsonl");
    writeFileSync(benchmark, `${rows[0]}\n${JSON.stringify(broken)}\n`);
    const predictions = join(scratchDir, "two-predictions.jsonl");
    writeFileSync(
      predictions,
      `${JSON.stringify({ schemaVersion: 1, instanceId: JSON.parse(rows[0] as string).instance_id, files: ["x.py"] })}\n`,
    );
    const result = await loclab(["score", "-b", benchmark, "-p", predictions, "-f", "loclab", "--json"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("score: 1 gold patch(es) failed to parse");
    expect(JSON.parse(result.stdout)).toMatchObject({ n: 1 });
  });
});

describe("compare, unshuffle: files are named, nothing is dropped silently", () => {
  it("compare on a header-only CSV names the file", async () => {
    const path = join(scratchDir, "header-only.csv");
    writeFileSync(path, "instance_id,a,b\n");
    const result = await loclab(["compare", "--resolved", path]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`loclab: error: ${path}: a header and no rows: no task to compare the systems on`);
  });

  it("unshuffle reads a mapping with a byte-order mark, names the file when the mapping is bad, and reports repeated ids", async () => {
    const repo = join(scratchDir, "repo");
    mkdirSync(join(repo, "pkg"), { recursive: true });
    writeFileSync(join(repo, "pkg", "__init__.py"), "");
    writeFileSync(join(repo, "pkg", "core.py"), "x = 1\n");
    const mapping = join(scratchDir, "keys", "m.json");
    expect(
      (
        await loclab([
          "shuffle",
          "--repo",
          repo,
          "--seed",
          "3",
          "--out",
          join(scratchDir, "shuffled"),
          "--mapping",
          mapping,
        ])
      ).exitCode,
    ).toBe(0);
    const withBom = join(scratchDir, "keys", "bom.json");
    writeFileSync(withBom, `\uFEFF${readFileSync(mapping, "utf8")}`);
    const core = (JSON.parse(readFileSync(mapping, "utf8")) as { files: Record<string, string> }).files[
      "pkg/core.py"
    ] as string;
    const predictions = join(scratchDir, "p.jsonl");
    const line = (files: string[]) => JSON.stringify({ schemaVersion: 1, instanceId: "o__r-1", files });
    writeFileSync(predictions, `${line([core])}\n${line(["other.py"])}\n`);
    const back = await loclab([
      "unshuffle",
      "--mapping",
      withBom,
      "--predictions",
      predictions,
      "--out",
      join(scratchDir, "back.jsonl"),
    ]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stderr).toContain(
      `${predictions}: 1 instance id(s) on more than one line; the first line of each is kept: o__r-1`,
    );
    const bad = join(scratchDir, "keys", "bad.json");
    writeFileSync(bad, JSON.stringify({ schemaVersion: 3, seed: 1, directories: {}, files: { "a.py": 3 } }));
    const refused = await loclab([
      "unshuffle",
      "--mapping",
      bad,
      "--predictions",
      predictions,
      "--out",
      join(scratchDir, "x.jsonl"),
    ]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^loclab: error: ${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not a shuffle mapping at files\\.a\\.py: `,
      ),
    );
  });
});

describe("usage errors and first use (issue 12, items 14 and 17)", () => {
  it("a misspelt option is named with a suggestion, in one line, before any required-option check", async () => {
    const result = await loclab(["score", "--benchmak", "lite"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      "loclab: error: unknown option '--benchmak' (did you mean --benchmark?); see 'loclab score --help'",
    );
  });

  it("a missing required option, or an unknown command, is one line with a pointer to --help", async () => {
    const missing = await loclab(["score", "-b", "lite"]);
    expect(missing.stderr).toBe(
      "loclab: error: required option '-p, --predictions <file>' not specified; see 'loclab score --help'",
    );
    const unknown = await loclab(["scor"]);
    expect(unknown.stderr.split("\n")).toHaveLength(1);
    expect(unknown.stderr).toContain("(Did you mean score?)");
    expect((await loclab(["score", "--help"])).exitCode).toBe(0);
  });

  it("the committed bin shim, before a build, says how to build in one line", async () => {
    const copy = mkdtempSync(join(tmpdir(), "loclab-shim-"));
    mkdirSync(join(copy, "bin"));
    writeFileSync(
      join(copy, "bin", "loclab.mjs"),
      readFileSync(fileURLToPath(new URL("../packages/cli/bin/loclab.mjs", import.meta.url))),
    );
    const result = await execa(process.execPath, [join(copy, "bin", "loclab.mjs"), "--help"], { reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      "loclab: error: the CLI is not built yet: run `npm run build` (or `npm run reproduce` / `npm test`, which build first) in the repository",
    );
    // And the linked command of this checkout runs the built CLI.
    const linked = await execa(fileURLToPath(new URL("../node_modules/.bin/loclab", import.meta.url)), ["--version"], {
      reject: false,
    });
    expect(linked.stdout).toBe("0.1.0");
  });
});

describe("comparing two localization runs from the CLI (issue 12, item 19)", () => {
  const gptOss = join(dataDir, "localization/blagent/gpt-oss-lite.jsonl");
  const claude = join(dataDir, "localization/blagent/claude-4-6-lite.jsonl");

  it("compare --predictions A --predictions B: the paired table and exact McNemar per 0/1 metric", async () => {
    const result = await loclab([
      "compare",
      "--predictions",
      gptOss,
      "--predictions",
      claude,
      "-b",
      "lite",
      "-f",
      "blagent",
      "--preset",
      "blagent",
      "--json",
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const { metrics } = JSON.parse(result.stdout) as {
      metrics: { key: string; n: number; meanA: number; meanB: number; aOnly: number; bOnly: number; p: number }[];
    };
    expect(metrics.map((metric) => metric.key)).toEqual(["file.acc@1", "file.acc@3", "file.acc@5", "file.acc@10"]);
    const acc1 = metrics[0]!;
    // BLAgent's README: Acc@1 0.7867 (gpt-oss) and 0.8667 (claude-4-6) on 300 Lite instances.
    expect([acc1.n, acc1.meanA, acc1.meanB]).toEqual([300, 236 / 300, 260 / 300]);
    expect(acc1.meanB - acc1.meanA).toBeCloseTo((acc1.bOnly - acc1.aOnly) / 300, 12);
    // Exact, in rational arithmetic: p = 2·Σ_{k≤9} C(42, k) / 2^42 = 597121091 / 2199023255552.
    expect([acc1.aOnly, acc1.bOnly]).toEqual([9, 33]);
    expect(Math.abs(acc1.p / (597121091 / 2199023255552) - 1)).toBeLessThan(1e-10);
    const refused = await loclab(["compare", "--predictions", gptOss, "-b", "lite", "-f", "blagent"]);
    expect(refused.stderr).toContain("--predictions: give exactly two files (A and B), got 1");
  });

  it("score --per-instance writes every instance's values, null where excluded", async () => {
    const out = join(scratchDir, "per-instance.jsonl");
    const result = await loclab([
      "score",
      "-b",
      "lite",
      "-p",
      gptOss,
      "-f",
      "blagent",
      "--preset",
      "blagent",
      "--per-instance",
      out,
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const rows = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as { schemaVersion: number; instanceId: string; metrics: Record<string, number | null> },
      );
    expect(rows).toHaveLength(300);
    expect(rows.filter((row) => row.metrics["file.acc@1"] === 1)).toHaveLength(236);
    expect(rows[0]).toMatchObject({ schemaVersion: 1, instanceId: expect.stringMatching(/__/) });
  });
});

describe("defects the malformed-input sweep found (issue 12)", () => {
  const blagent = join(dataDir, "localization/blagent/gpt-oss-lite.jsonl");
  const liteRow = () =>
    JSON.parse(readFileSync(join(dataDir, "swebench/lite.jsonl"), "utf8").split("\n")[0] as string) as Record<
      string,
      unknown
    >;

  it("mask: a field nested 200,000 deep is an error naming the instance, and nothing is written", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const row = JSON.stringify(liteRow()).replace(/}$/, `,"extra":${deep}}`);
    const benchmark = join(scratchDir, "deep.jsonl");
    writeFileSync(benchmark, `${row}\n`);
    const out = join(scratchDir, "deep-masked.jsonl");
    const result = await loclab(["mask", "--benchmark", benchmark, "--out", out]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /deep\.jsonl: astropy__astropy-12907 \(row 1\): cannot be written: .*nested too deeply\?\); nothing was written/,
    );
  });

  it("score: --k '' and a decimal-only number, and an empty predictions file", async () => {
    expect((await loclab(["score", "-b", "lite", "-p", blagent, "-f", "blagent", "--k", ""])).stderr).toContain(
      '--k: "" is not an integer >= 1',
    );
    expect((await loclab(["mcnemar", "--b", "0x10", "--c", "1"])).stderr).toContain(
      '--b: "0x10" is not an integer >= 0',
    );
    const empty = join(scratchDir, "empty-predictions.jsonl");
    writeFileSync(empty, "");
    const result = await loclab(["score", "-b", "lite", "-p", empty, "-f", "loclab"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`score: ${empty} holds no predictions, so every instance scored 0`);
  });

  it("tool search: a glob that climbs is refused; tool view on a folder that cannot be walked says so", async () => {
    const repo = join(scratchDir, "globrepo");
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, "a.py"), "x = 1\n");
    const climbing = await loclab(["tool", "search", "--repo", repo, "--query", "x", "--glob", "../*"]);
    expect(climbing.exitCode).toBe(1);
    expect(climbing.stderr).toContain('glob "../*" contains "..": globs match paths inside the repository');
  });

  it("breakdown --tasks of random bytes, and compare on a CSV with invalid UTF-8, name the file and line", async () => {
    const tasks = join(scratchDir, "tasks.bin");
    writeFileSync(tasks, Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a]));
    const run = join(dataDir, "trajectories");
    const breakdown = await loclab(["breakdown", "--run", `x=swe-agent:${run}`, "--tasks", tasks]);
    expect(breakdown.exitCode).toBe(1);
    expect(breakdown.stderr).toContain(`--tasks: ${tasks}:2: not valid UTF-8 (at byte 0 of the line)`);
    const csv = join(scratchDir, "latin1.csv");
    writeFileSync(
      csv,
      Buffer.concat([Buffer.from("instance_id,sys"), Buffer.from([0xe9]), Buffer.from("\na__a-1,1\n")]),
    );
    const compare = await loclab(["compare", "--resolved", csv]);
    expect(compare.exitCode).toBe(1);
    expect(compare.stderr).toContain(`${csv}:1: not valid UTF-8 (at byte 15 of the line)`);
  });
});

describe("loclab report and view name what is wrong with their input", () => {
  it("a missing folder, a folder that is no run, an unknown format: exit 1 and the reason", async () => {
    const empty = scratch("loclab-report-");
    const cases: [string[], string][] = [
      [["report", join(empty, "nope"), "--out", join(empty, "site")], `${join(empty, "nope")}: no such file or folder`],
      [
        ["report", empty, "--out", join(empty, "site")],
        `${empty}: no manifest.json: not a loclab run folder (for imported trajectories, give --format)`,
      ],
      [
        ["report", empty, "--format", "inspect", "--out", join(empty, "site")],
        "--format inspect: not one of run, loclab, mini-swe-agent, swe-agent, autocoderover, sherloc, fgl-scores",
      ],
      [["view", join(empty, "nope")], `${join(empty, "nope")}: no such file or folder`],
    ];
    for (const [argv, message] of cases) {
      const result = await loclab(argv);
      expect(result.exitCode, argv.join(" ")).toBe(1);
      expect(result.stderr).toContain(message);
    }
  });
});
