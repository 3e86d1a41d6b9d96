import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type PolicyModelServer, startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loclab } from "./helpers.js";

// `loclab run`, `loclab status`, `loclab run score` as a researcher calls them: the real CLI
// process, a spec file, the toy benchmark (real git), the policy model server over real HTTP.
let toy: ToyBenchmark;
let server: PolicyModelServer;
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 2 });
  server = await startPolicyModelServer();
});
afterAll(async () => {
  await server.close();
  await toy.dispose();
});
function specFile(name: string, spec: Record<string, unknown>): string {
  const path = join(toy.dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      benchmark: toy.benchmark,
      seeds: [1],
      controls: [{ kind: "plain" }, { kind: "mismatch", seed: 3 }],
      endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 2 }],
      repos: toy.mirrors,
      out: `runs/${name}`,
      ...spec,
    }),
  );
  return path;
}

describe("loclab run", () => {
  it("runs a spec, reports the run, shows its status and scores it; run again, it has nothing left to do", async () => {
    const spec = specFile("good.json", {});
    const run = await loclab("run", spec);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("keys: 8, done 8, with a prediction 8 (finished 8)");
    expect(run.stderr).toMatch(
      /starting .*runs\/good\.json: 8 attempt keys \(2 cells\), 0 already done, 1 of 1 endpoints ready/,
    );
    expect(run.stderr).toMatch(/seed-1\/mismatch-3 acme__abacus-1 #1: finished: beacon\//);
    const dir = join(toy.dir, "runs", "good.json");
    const status = await loclab("status", dir);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/: finished\n/);
    expect(status.stdout).toMatch(/seed-1\/plain\s+4\/4 done {2}4 predicted {2}0 failed attempts {2}\(finished 4\)/);
    const score = await loclab("run", "score", dir);
    expect(score.exitCode, score.stderr).toBe(0);
    expect(score.stdout).toMatch(/\|mismatch:3\|0\.00\|/);
    expect(score.stdout).toMatch(/\|mismatch:3\|1\|4\|-\d+\.\d\d\|/);
    expect(existsSync(join(dir, "results", "across-seeds.csv"))).toBe(true);
    const again = await loclab("run", spec);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("this session: 0 attempt(s)");
  });

  it("refuses bad specs in one line naming the field or file, and starts nothing", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { controls: [{ kind: "plain" }, { kind: "scrambled" }] },
        /bad1\.json: \$\.controls\[1\]\.kind: unknown control kind; one of plain, masked, shuffled, mismatch$/,
      ],
      [{ seeds: [1, -2] }, /bad2\.json: \$\.seeds\[1\]: /],
      [
        { endpoints: [{ baseURL: "ftp://127.0.0.1:8000/v1", model: "toy-policy" }] },
        /bad3\.json: \$\.endpoints\[0\]\.baseURL: an http:\/\/ or https:\/\/ URL/,
      ],
      [
        { instances: ["acme__abacus-1", "django__django-11099"] },
        /bad4\.json: \$\.instances\[1\]: django__django-11099 is not an instance of the benchmark$/,
      ],
    ];
    for (const [i, [spec, message]] of cases.entries()) {
      const name = `bad${i + 1}.json`;
      const result = await loclab("run", specFile(name, spec));
      expect(result.exitCode, name).toBe(1);
      const lines = result.stderr.trim().split("\n");
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toMatch(/^loclab: error: /);
      expect(lines[0], name).toMatch(message);
      expect(existsSync(join(toy.dir, "runs", name)), name).toBe(false);
    }
    // A folder that holds another run's manifest: refused, nothing in it changes.
    const first = await loclab("run", specFile("taken.json", { controls: [{ kind: "plain" }] }));
    expect(first.exitCode, first.stderr).toBe(0);
    const dir = join(toy.dir, "runs", "taken.json");
    const before = readFileSync(join(dir, "attempts.jsonl"), "utf8");
    const other = await loclab(
      "run",
      specFile("other.json", { out: "runs/taken.json", controls: [{ kind: "plain" }], seeds: [2] }),
    );
    expect(other.exitCode).toBe(1);
    expect(other.stderr.trim().split("\n")).toEqual([
      `loclab: error: ${join(dir, "manifest.json")} holds another run (its spec differs at $.seeds[0]); choose another "out", or continue that run with loclab run --resume ${dir}`,
    ]);
    expect(readFileSync(join(dir, "attempts.jsonl"), "utf8")).toBe(before);
    expect(readdirSync(join(dir, "cells"))).toEqual(["seed-1"]);
    const neither = await loclab("run");
    expect(neither.stderr.trim()).toBe(
      "loclab: error: give a run spec (loclab run SPEC) or --resume DIR, not both and not neither",
    );
    const notRun = await loclab("status", toy.dir);
    expect(notRun.stderr.trim()).toBe(`loclab: error: ${toy.dir}: no manifest.json: not a run folder`);
  });
});

describe("first real use: what loclab run score and loclab breakdown print", () => {
  it("run score: every metric its own column, the keys' outcomes and the leak audit per cell; breakdown DIR reads the run folder", async () => {
    const spec = specFile("audit.json", {
      controls: [{ kind: "plain" }, { kind: "masked" }, { kind: "shuffled", seed: 2 }],
    });
    expect((await loclab("run", spec)).exitCode).toBe(0);
    const dir = join(toy.dir, "runs", "audit.json");
    const score = await loclab("run", "score", dir);
    expect(score.exitCode, score.stderr).toBe(0);
    // The header of the across-seeds table: each metric a column of its own (two used to be glued).
    expect(score.stdout).toContain(
      "|control|file.acc@1|file.acc@5|file.recall@5|module.acc@5|function.acc@5|span.coverageRecall|span.precision|",
    );
    expect(score.stdout).toMatch(/\|seed-1\/plain\|4\|4\|finished 4\|submitted 4\|/);
    expect(score.stdout).toContain(
      "|cell|audited|instanceId|owner|repository|packages|goldPaths|goldModules|goldFileNames|goldSymbols|",
    );
    expect(score.stdout).toMatch(/\|seed-1\/shuffled-2\|4\|0\|0\|0\|0\|0\|0\|/);
    expect(score.stdout).not.toMatch(/undefined|NaN/);
    const breakdown = await loclab("breakdown", dir);
    expect(breakdown.exitCode, breakdown.stderr).toBe(0);
    expect(breakdown.stdout).toContain(
      "|cell|keys|finished|forcedFinal|invalidFinal|stepLimit|wallBudget|contextLimit|tokenBudget|modelError|open|loops|noSuchFileKeys|noSuchFile|medianTurns|",
    );
    expect(breakdown.stdout).toMatch(/\|seed-1\/plain\|4\|4\|0\|0\|0\|0\|0\|0\|0\|0\|/);
    expect(breakdown.stdout).toMatch(/\|masked:modules\|1\|4\|/);
    const json = JSON.parse((await loclab("breakdown", dir, "--json")).stdout) as {
      rows: { cell: string; finished: number }[];
    };
    expect(json.rows.map((row) => row.finished)).toEqual([4, 4, 4]);
    const both = await loclab("breakdown", dir, "--run", `x=loclab:${dir}`);
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain("not both");
  });

  it("run score on a run without a single prediction says so, and why, before any table", async () => {
    const spec = specFile("none.json", {
      controls: [{ kind: "plain" }],
      localizer: { maxTurns: 1 },
      instances: ["acme__abacus-1"],
    });
    // One turn, and the policy server does not submit on its first: every key ends without a prediction.
    await loclab("run", spec);
    const dir = join(toy.dir, "runs", "none.json");
    const score = await loclab("run", "score", dir);
    expect(score.exitCode, score.stderr).toBe(0);
    const first = score.stdout.indexOf("no predictions: none of the 1 attempt keys produced one (final exits: ");
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(score.stdout.indexOf("|"));
  });

  it("loclab gold prints every row of Lite, none with undefined", async () => {
    const gold = await loclab("gold", "--benchmark", "lite");
    expect(gold.exitCode, gold.stderr).toBe(0);
    const rows = gold.stdout
      .split("\n")
      .filter((line) => line.startsWith("|") && !line.startsWith("|instance") && !line.startsWith("|:"));
    expect(rows).toHaveLength(300);
    expect(gold.stdout).not.toMatch(/undefined|NaN/);
  });
});
