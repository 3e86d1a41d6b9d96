import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataDir, loclab, scratch } from "./helpers.js";

// The CLI as a user runs it: the built bin in a child process, real files, exit codes.
const scratchDir = scratch("loclab-cli-");

describe("loclab --help", () => {
  it("lists the subcommands", async () => {
    const { stdout, exitCode } = await loclab(["--help"]);
    expect(exitCode).toBe(0);
    for (const command of ["gold", "datasets", "reproduce"])
      expect(stdout).toMatch(new RegExp(`^\\s+${command}\\b`, "m"));
  });

  it("explains a missing required option", async () => {
    const { stderr, exitCode } = await loclab(["gold"]);
    expect(exitCode).toBe(1);
    expect(stderr).toContain("required option '-b, --benchmark <name|path>' not specified");
  });
});

describe("loclab gold", () => {
  it("prints one versioned JSON object per Lite instance", async () => {
    const { stdout, exitCode } = await loclab(["gold", "--benchmark", "lite", "--json"]);
    expect(exitCode).toBe(0);
    const records = stdout
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            schemaVersion: number;
            instanceId: string;
            files: string[];
            created: string[];
            spans: unknown[];
          },
      );
    expect(records).toHaveLength(300);
    expect(records.every((record) => record.schemaVersion === 1 && record.files.length === 1)).toBe(true);
    expect(records[0]).toEqual({
      schemaVersion: 1,
      instanceId: "astropy__astropy-12907",
      files: ["astropy/modeling/separable.py"],
      created: [],
      // No checkout: the spans are the patch's @@ numbers, and the record says so.
      lines: "patch-header",
      spans: [{ path: "astropy/modeling/separable.py", startLine: 245, endLine: 245, kind: "removed", hunk: 0 }],
    });
  });

  it("reports a bad patch with its instance and line, and still prints the others", async () => {
    const rows = readFileSync(join(dataDir, "swebench/verified.jsonl"), "utf8").trim().split("\n").slice(0, 3);
    const broken = JSON.parse(rows[1] ?? "{}") as { instance_id: string; patch: string };
    broken.patch = `${broken.patch}this line is not part of any diff\n`;
    const path = join(scratchDir, "one-broken.jsonl");
    writeFileSync(path, [rows[0], JSON.stringify(broken), rows[2]].join("\n"));
    const { stdout, stderr, exitCode } = await loclab(["gold", "--benchmark", path, "--json"]);
    expect(exitCode).toBe(1);
    expect(stdout.trim().split("\n")).toHaveLength(2);
    expect(stderr).toMatch(new RegExp(`gold failed: ${broken.instance_id}: patch line \\d+: expected a file header`));
  });

  it("names an unknown benchmark", async () => {
    const { stderr, exitCode } = await loclab(["gold", "--benchmark", "lightning"]);
    expect(exitCode).toBe(1);
    expect(stderr).toMatch(/^loclab: error: unknown benchmark "lightning"/m);
  });
});

describe("loclab score", () => {
  const blagent = join(dataDir, "localization/blagent/gpt-oss-lite.jsonl");

  it("prints one JSON object with unrounded fractions keyed <level>.<metric>[@k]", async () => {
    const { stdout, stderr, exitCode } = await loclab([
      "score",
      "--benchmark",
      "lite",
      "--predictions",
      blagent,
      "--format",
      "blagent",
      "--preset",
      "blagent",
      "--json",
    ]);
    expect(exitCode).toBe(0);
    const result = JSON.parse(stdout) as {
      preset: string;
      n: number;
      excluded: number;
      metrics: Record<string, number>;
    };
    expect(result).toMatchObject({ preset: "blagent", n: 300, excluded: 0 });
    expect(Object.keys(result.metrics)).toEqual(["file.acc@1", "file.acc@3", "file.acc@5", "file.acc@10", "file.mrr"]);
    expect(result.metrics["file.acc@1"]).toBe(236 / 300);
    expect(stderr).toMatch(/300 predictions read; 0 for ids not in lite/);
  });

  it("takes --k and defaults to the unified preset", async () => {
    const { stdout, exitCode } = await loclab([
      "score",
      "-b",
      "lite",
      "-p",
      blagent,
      "-f",
      "blagent",
      "--k",
      "2,4",
      "--json",
    ]);
    expect(exitCode).toBe(0);
    const { preset, metrics } = JSON.parse(stdout) as { preset: string; metrics: Record<string, number> };
    expect(preset).toBe("unified");
    expect(Object.keys(metrics).filter((key) => key.startsWith("file."))).toEqual([
      "file.hit@2",
      "file.hit@4",
      "file.acc@2",
      "file.acc@4",
      "file.recall@2",
      "file.recall@4",
      "file.precision@2",
      "file.precision@4",
      "file.mrr",
      "file.map",
    ]);
    for (const value of Object.values(metrics)) expect(value >= 0 && value <= 1).toBe(true);
  });

  it("names a bad --k value and an unknown format", async () => {
    const badK = await loclab(["score", "-b", "lite", "-p", blagent, "-f", "blagent", "--k", "1,zero"]);
    expect(badK.exitCode).toBe(1);
    expect(badK.stderr).toContain('loclab: error: --k: "zero" is not an integer >= 1');
    const badFormat = await loclab(["score", "-b", "lite", "-p", blagent, "-f", "swe-agent"]);
    expect(badFormat.exitCode).toBe(1);
    expect(badFormat.stderr).toMatch(
      /argument 'swe-agent' is invalid\. Allowed choices are locagent, agentless, blagent, loclab/,
    );
  });
});

describe("loclab mcnemar, compare, power", () => {
  it("mcnemar prints b, c, p and mid-p; the FGL 5/1 example gives p = 0.22", async () => {
    const { stdout, exitCode } = await loclab(["mcnemar", "--b", "5", "--c", "1", "--json"]);
    expect(exitCode).toBe(0);
    const result = JSON.parse(stdout) as { b: number; c: number; p: number; midP: number };
    expect([result.b, result.c, Number(result.p.toFixed(2))]).toEqual([5, 1, 0.22]);
    expect(result.p).toBeCloseTo(14 / 64, 14);
    expect(result.midP).toBeLessThan(result.p);
  });

  it("mcnemar names a bad count", async () => {
    const { stderr, exitCode } = await loclab(["mcnemar", "--b", "2.5", "--c", "1"]);
    expect(exitCode).toBe(1);
    expect(stderr).toContain('loclab: error: --b: "2.5" is not an integer >= 0');
  });

  it("compare gives every system and all 861 Lite pairs, Holm-adjusted on request", async () => {
    const file = join(dataDir, "resolved/lite.csv");
    const { stdout, exitCode } = await loclab(["compare", "--resolved", file, "--holm", "--json"]);
    expect(exitCode).toBe(0);
    const result = JSON.parse(stdout) as {
      systems: {
        name: string;
        resolved: number;
        n: number;
        rate: number;
        wilson: [number, number];
        clusteredSE: number;
      }[];
      pairs: { a: string; b: string; aOnly: number; bOnly: number; p: number; pHolm: number | null }[];
    };
    expect(result.systems).toHaveLength(42);
    expect(result.pairs).toHaveLength(861);
    const first = result.systems[0];
    expect(first).toMatchObject({ name: "20231010_rag_claude2", resolved: 9, n: 300, rate: 0.03 });
    expect(first?.wilson[0]).toBeLessThan(0.03);
    expect(result.pairs.every((pair) => pair.pHolm !== null && pair.pHolm >= pair.p)).toBe(true);
    const unadjusted = JSON.parse((await loclab(["compare", "--resolved", file, "--json"])).stdout) as {
      pairs: { pHolm: number | null }[];
    };
    expect(unadjusted.pairs.every((pair) => pair.pHolm === null)).toBe(true);
  });

  it("compare refuses a bad matrix, naming line and column, and prints nothing", async () => {
    const path = join(scratchDir, "bad-matrix.csv");
    writeFileSync(path, "instance_id,A,B\nx__x-1,1,0\nx__x-2,1,yes\n");
    const { stdout, stderr, exitCode } = await loclab(["compare", "--resolved", path, "--json"]);
    expect(exitCode).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(`${path}: line 3, column "B": expected 0 or 1, got "yes"`);
  });

  it("power gives Connor's n for a difference, and the minimum detectable effect for an n", async () => {
    const n = JSON.parse((await loclab(["power", "--psi", "0.2", "--delta", "0.0595", "--json"])).stdout) as {
      n: number;
      nExact: number;
    };
    // n = [z(0.975)·√ψ + z(0.8)·√(ψ − δ²)]² / δ²
    const z975 = 1.959963984540054;
    const z80 = 0.8416212335729143;
    const exact = (z975 * Math.sqrt(0.2) + z80 * Math.sqrt(0.2 - 0.0595 ** 2)) ** 2 / 0.0595 ** 2;
    expect(n.nExact).toBeCloseTo(exact, 8);
    expect(n.n).toBe(Math.ceil(exact));
    const mde = JSON.parse((await loclab(["power", "--psi", "0.2", "--n", String(n.n), "--json"])).stdout) as {
      mde: number;
    };
    expect(mde.mde).toBeLessThanOrEqual(0.0595);
    expect(mde.mde).toBeGreaterThan(0.059);
    const both = await loclab(["power", "--psi", "0.2", "--delta", "0.05", "--n", "300"]);
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain("give exactly one of --delta");
  });
});

describe("loclab mask", () => {
  it("writes loadable masked instances with their reports and prints the summary", async () => {
    const out = join(scratchDir, "masked", "lite-paths.jsonl");
    const { stdout, exitCode } = await loclab(["mask", "--benchmark", "lite", "--out", out, "--json"]);
    expect(exitCode).toBe(0);
    const summary = JSON.parse(stdout) as {
      instances: number;
      instancesWithMention: number;
      revealingBefore: { path: number };
      revealingAfter: { path: number };
    };
    expect(summary.instances).toBe(300);
    expect(summary.revealingBefore.path).toBeGreaterThan(0);
    expect(summary.revealingAfter.path).toBe(0);
    const { loadBenchmark } = await import("@loclab/datasets");
    const masked = await loadBenchmark(out);
    expect(masked.instances).toHaveLength(300);
    // The masked file carries no original text and no placeholder map: those are in the report file.
    const lite = await loadBenchmark("lite");
    const changed = masked.instances.filter((row, i) => row.problem_statement !== lite.instances[i]?.problem_statement);
    expect(changed).toHaveLength(summary.instancesWithMention);
    expect(changed.every((row) => /<path-\d+>/.test(row.problem_statement))).toBe(true);
    expect(masked.instances.some((row) => "original_problem_statement" in row || "mask" in row)).toBe(false);
    const reports = readFileSync(join(scratchDir, "masked", "lite-paths.report.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(reports.map((r) => r.instance_id)).toEqual(lite.instances.map((i) => i.instance_id));
    expect(reports.every((r, i) => r.original_problem_statement === lite.instances[i]?.problem_statement)).toBe(true);
  });
});

describe("loclab shuffle and unshuffle", () => {
  it("shuffles a checkout, and maps predictions made on it back to the original names", async () => {
    const { mkdirSync } = await import("node:fs");
    const repo = join(scratchDir, "repo");
    mkdirSync(join(repo, "pkg"), { recursive: true });
    writeFileSync(join(repo, "pkg", "__init__.py"), "");
    writeFileSync(join(repo, "pkg", "core.py"), "def f():\n    return 1\n");
    writeFileSync(join(repo, "pkg", "api.py"), "from pkg.core import f\nfrom . import core\n");
    const out = join(scratchDir, "shuffled");
    const mappingFile = join(scratchDir, "keys", "mapping.json");
    const shuffled = await loclab([
      "shuffle",
      "--repo",
      repo,
      "--seed",
      "11",
      "--out",
      out,
      "--mapping",
      mappingFile,
      "--json",
    ]);
    expect(shuffled.exitCode).toBe(0);
    const report = JSON.parse(shuffled.stdout) as { files: number; pythonFiles: number; importsRewritten: number };
    expect(report).toMatchObject({ files: 3, pythonFiles: 3 });
    expect(report.importsRewritten).toBeGreaterThanOrEqual(2);
    const mapping = JSON.parse(readFileSync(mappingFile, "utf8")) as { files: Record<string, string> };
    const shuffledCore = mapping.files["pkg/core.py"] as string;
    expect(shuffledCore).toMatch(/^d_[a-z0-9]{6}\/m_[a-z0-9]{6}\.py$/);
    expect(readFileSync(join(out, shuffledCore), "utf8")).toBe("def f():\n    return 1\n");
    const predictions = join(scratchDir, "on-shuffled.jsonl");
    writeFileSync(
      predictions,
      `${JSON.stringify({ schemaVersion: 1, instanceId: "o__r-1", files: [shuffledCore, "nowhere/x.py"], locations: [{ path: shuffledCore, startLine: 1, endLine: 2, role: "edit" }] })}\n`,
    );
    const back = join(scratchDir, "unshuffled.jsonl");
    const unshuffled = await loclab([
      "unshuffle",
      "--mapping",
      mappingFile,
      "--predictions",
      predictions,
      "--out",
      back,
    ]);
    expect(unshuffled.exitCode).toBe(0);
    const [row] = readFileSync(back, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { files: string[]; locations: { path: string }[] });
    expect(row?.files).toEqual(["pkg/core.py", "<unmapped>/nowhere/x.py"]);
    expect(row?.locations[0]?.path).toBe("pkg/core.py");
    const again = await loclab([
      "shuffle",
      "--repo",
      repo,
      "--seed",
      "11",
      "--out",
      out,
      "--mapping",
      join(scratchDir, "keys", "other.json"),
    ]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/loclab: error: .*not empty|loclab: error: .*exists/);
  });
});

describe("loclab tool", () => {
  const django = "/usr/lib/python3/dist-packages/django";
  const haveDjango = existsSync(join(django, "__init__.py"));

  it.skipIf(!haveDjango)(
    "search prints repository-relative hits with 1-based lines (needs Debian python3-django)",
    async () => {
      const { stdout, exitCode } = await loclab([
        "tool",
        "search",
        "--repo",
        django,
        "--query",
        "get_FOO_display",
        "--json",
      ]);
      expect(exitCode).toBe(0);
      const result = JSON.parse(stdout) as { hits: { path: string; line: number; text: string }[]; truncated: number };
      expect(result.hits[0]).toMatchObject({ path: "db/models/fields/__init__.py", line: 791 });
      expect(result.truncated).toBe(0);
    },
  );

  it("refuses a path that leaves the repository, and views a file by a fuzzy path", async () => {
    const { mkdirSync } = await import("node:fs");
    const repo = join(scratchDir, "tool-repo");
    mkdirSync(join(repo, "pkg"), { recursive: true });
    writeFileSync(join(repo, "pkg", "module.py"), "import os\nfrom . import other\n");
    writeFileSync(join(repo, "pkg", "other.py"), "X = 1\n");
    writeFileSync(join(repo, "pkg", "__init__.py"), "");
    const refused = await loclab(["tool", "view", "--repo", repo, "--path", "../x"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/^loclab: error: refused: /m);
    const view = await loclab(["tool", "view", "--repo", repo, "--path", "MODULE.py", "--json"]);
    expect(view.exitCode).toBe(0);
    expect(view.stdout).toContain("pkg/module.py");
    const imports = JSON.parse(
      (await loclab(["tool", "imports", "--repo", repo, "--path", "pkg/module.py", "--json"])).stdout,
    ) as Record<string, unknown>;
    expect(JSON.stringify(imports)).toContain("pkg/other.py");
  });
});

describe("loclab breakdown", () => {
  it("reproduces the solved counts of the four real runs on their 41 common tasks", async () => {
    const runs = join(dataDir, "trajectories");
    const manifest = JSON.parse(readFileSync(join(runs, "manifest.json"), "utf8")) as {
      core_instance_set: { ids: string[] };
    };
    const tasks = join(scratchDir, "tasks.txt");
    writeFileSync(tasks, `${manifest.core_instance_set.ids.join("\n")}\n`);
    const { stdout, exitCode } = await loclab([
      "breakdown",
      "--run",
      `deepseek=mini-swe-agent:${join(runs, "mini-swe-agent_deepseek-chat_lite")}`,
      "--run",
      `gemini=mini-swe-agent:${join(runs, "mini-swe-agent_gemini-3-pro_verified")}`,
      "--run",
      `sweagent=swe-agent:${join(runs, "swe-agent_gpt4_lite")}`,
      "--run",
      `acr=autocoderover:${join(runs, "autocoderover_gpt4_lite")}`,
      "--base",
      "sweagent",
      "--tasks",
      tasks,
      "--json",
    ]);
    expect(exitCode).toBe(0);
    const result = JSON.parse(stdout) as {
      runs: {
        run: string;
        tasks: number;
        solved: number;
        outOfBudget: number;
        wrongPatch: number;
        noPatch: number;
        vsBase: { baseOnly: number; runOnly: number; p: number } | null;
      }[];
      everSolved: number;
    };
    expect(
      result.runs.map((run) => [run.run, run.tasks, run.solved, run.outOfBudget, run.wrongPatch, run.noPatch]),
    ).toEqual([
      ["deepseek", 41, 33, 0, 8, 0],
      ["gemini", 41, 32, 0, 9, 0],
      ["sweagent", 41, 6, 0, 30, 5],
      ["acr", 41, 12, 6, 22, 1],
    ]);
    expect(result.runs[3]?.vsBase).toMatchObject({ baseOnly: 2, runOnly: 8, p: 0.109375 });
    expect(result.everSolved).toBe(37);
  });

  it("names an unknown format", async () => {
    const { stderr, exitCode } = await loclab(["breakdown", "--run", `x=openhands:${scratchDir}`]);
    expect(exitCode).toBe(1);
    expect(stderr).toMatch(/openhands/);
  });
});
