import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCalcFixture, calcEvaluationRow, CALC_EVALUATION_SPECS, type CalcFixture } from "@loclab/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loclabWith } from "./helpers.js";

// `loclab evaluate` (issue 17): grading a log offline agrees with the official harness; the
// checks that run before any work; a whole evaluation on the Docker engine `npm test` starts.
const loclab = (args: string[], env: Record<string, string> = {}) => loclabWith({ env })(args);
const reference = JSON.parse(
  await readFile(resolve(import.meta.dirname, "../packages/grading/fixtures/reference.json"), "utf8"),
) as {
  cases: {
    name: string;
    repo: string;
    version: string;
    instance_id: string;
    log: string;
    FAIL_TO_PASS: string[];
    PASS_TO_PASS: string[];
    report: unknown;
  }[];
};
let root: string;
let fixture: CalcFixture;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "loclab-evaluate-cli-"));
  fixture = await buildCalcFixture({ dir: join(root, "calc") });
  const row = await calcEvaluationRow(fixture);
  await writeFile(join(root, "calc.jsonl"), `${JSON.stringify(row)}\n`);
  await writeFile(join(root, "specs.json"), JSON.stringify(CALC_EVALUATION_SPECS));
  await writeFile(
    join(root, "preds.jsonl"),
    `${JSON.stringify({ instance_id: row.instance_id, model_name_or_path: "org/gold-model", model_patch: row.patch })}\n`,
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("loclab evaluate grade", () => {
  it("prints the report.json entry the official harness writes for the same log, for one case of each parser", async () => {
    const byParser = new Map<string, (typeof reference.cases)[number]>();
    for (const entry of reference.cases)
      if (!byParser.has(entry.repo) && entry.instance_id.includes("__")) byParser.set(entry.repo, entry);
    expect(byParser.size).toBeGreaterThanOrEqual(7);
    const rows = [...byParser.values()].map((entry) => ({
      instance_id: entry.instance_id,
      repo: entry.repo,
      version: entry.version,
      base_commit: "0".repeat(40),
      problem_statement: "",
      patch: "",
      FAIL_TO_PASS: entry.FAIL_TO_PASS,
      PASS_TO_PASS: entry.PASS_TO_PASS,
    }));
    const benchmark = join(root, "grading.jsonl");
    await writeFile(benchmark, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
    for (const entry of byParser.values()) {
      const log = join(root, `${entry.name}.txt`);
      await writeFile(log, entry.log);
      const result = await loclab([
        "evaluate",
        "grade",
        "--log",
        log,
        "--instance",
        entry.instance_id,
        "-b",
        benchmark,
      ]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout), entry.name).toEqual({ [entry.instance_id]: entry.report });
    }
  });

  it("a repository the harness does not know is graded by its specs file's parser; a bad specs file names the field", async () => {
    const flask = reference.cases.find((entry) => entry.repo === "pallets/flask")!;
    const id = "custom-org__custom-1";
    const benchmark = join(root, "custom.jsonl");
    await writeFile(
      benchmark,
      `${JSON.stringify({ instance_id: id, repo: "custom-org/custom", version: "0.1", base_commit: "0".repeat(40), problem_statement: "", patch: "", FAIL_TO_PASS: flask.FAIL_TO_PASS, PASS_TO_PASS: flask.PASS_TO_PASS })}\n`,
    );
    const log = join(root, "custom.txt");
    await writeFile(log, flask.log);
    const specs = join(root, "custom-specs.json");
    await writeFile(
      specs,
      JSON.stringify({ "custom-org/custom": { "0.1": { python: "3.11", test_cmd: "pytest -rA", parser: "pytest" } } }),
    );
    const args = ["evaluate", "grade", "--log", log, "--instance", id, "-b", benchmark];
    const graded = await loclab([...args, "--specs", specs]);
    expect(graded.exitCode, graded.stderr).toBe(0);
    // The same log under flask's own name gives the official harness's report (reference.json).
    expect(JSON.parse(graded.stdout)).toEqual({ [id]: flask.report });
    const without = await loclab(args);
    expect(without.exitCode).toBe(1);
    expect(without.stderr).toMatch(/no SWE-bench log parser for repository "custom-org\/custom"/);
    await writeFile(
      specs,
      JSON.stringify({ "custom-org/custom": { "0.1": { python: "3.11", test_cmd: "pytest", parser: "nose" } } }),
    );
    const bad = await loclab([...args, "--specs", specs]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/specs file .*custom-specs\.json: custom-org\/custom → 0\.1 → parser: /);
  });

  it("a missing log or an unknown instance is one error line, exit 1", async () => {
    const missing = await loclab([
      "evaluate",
      "grade",
      "--log",
      join(root, "nope.txt"),
      "--instance",
      "django__django-11099",
      "-b",
      "lite",
    ]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/--log .*nope\.txt: no such file/);
    const unknown = await loclab([
      "evaluate",
      "grade",
      "--log",
      join(root, "nope.txt"),
      "--instance",
      "django__django-0",
      "-b",
      "lite",
    ]);
    expect(unknown.stderr).toMatch(/--instance: not in lite: django__django-0/);
  });
});

describe("loclab evaluate", () => {
  it("checks before any work: missing options, local images without mirrors, a bad --resolved-as-of, a dead engine; nothing is written", async () => {
    expect((await loclab(["evaluate", "-b", "lite", "--run-id", "x"])).stderr).toMatch(/--predictions is required/);
    // The same evaluation each time, one thing wrong in each; the out folder must stay unwritten.
    const args = (out: string, ...extra: string[]) => [
      "evaluate",
      "--predictions",
      join(root, "preds.jsonl"),
      "-b",
      join(root, "calc.jsonl"),
      "--run-id",
      "x",
      ...extra,
      "--specs",
      join(root, "specs.json"),
      "--out",
      join(root, out),
    ];
    const noRepos = await loclab(args("out-a", "--images", "local"));
    expect(noRepos.exitCode).toBe(1);
    expect(noRepos.stderr).toMatch(/--images local builds images from mirrors: give --repos DIR/);
    const badDate = await loclab(args("out-d", "--repos", fixture.mirrors, "--resolved-as-of", "yesterday"));
    expect(badDate.exitCode).toBe(1);
    expect(badDate.stderr).toMatch(/--resolved-as-of: "yesterday" is not harness, now or an ISO date/);
    expect(existsSync(join(root, "out-d"))).toBe(false);
    const dead = await loclab(args("out-b", "--repos", fixture.mirrors), {
      DOCKER_HOST: `unix://${join(root, "dead.sock")}`,
    });
    expect(dead.exitCode).toBe(1);
    expect(dead.stderr).toMatch(/no Docker engine answers at unix:\/\/.*dead\.sock/);
    expect(existsSync(join(root, "out-b"))).toBe(false);
  });

  it("evaluates the gold patch on the engine: progress on stderr, the summary table, report.json in the harness's layout, exit 0", async () => {
    const out = join(root, "out-c");
    const result = await loclab([
      "evaluate",
      "--predictions",
      join(root, "preds.jsonl"),
      "-b",
      join(root, "calc.jsonl"),
      "--run-id",
      "cli",
      "--repos",
      fixture.mirrors,
      "--specs",
      join(root, "specs.json"),
      "--out",
      out,
      "--no-cache",
      "--min-free-gib",
      "1",
      "--validations",
      join(root, "validations"),
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\[1\/1\] acme__calc-1 resolved/);
    expect(result.stdout).toMatch(/summary: .*org__gold-model\.cli\.json/);
    const summary = JSON.parse(await readFile(join(out, "org__gold-model.cli.json"), "utf8"));
    expect(summary).toMatchObject({ resolved_ids: ["acme__calc-1"], error_ids: [], schema_version: 2 });
    const report = JSON.parse(
      await readFile(
        join(out, "logs", "run_evaluation", "cli", "org__gold-model", "acme__calc-1", "report.json"),
        "utf8",
      ),
    );
    expect(report["acme__calc-1"].resolved).toBe(true);
    // The Python the image had, and that no calibration validated it (the validations are this test's own).
    expect(result.stdout).toMatch(/^python 3\.11\.\d+ \(exact\): 1 instance$/m);
    expect(result.stdout).toMatch(
      /^warning: 1 instance\(s\) graded on images no calibration validated \(loclab evaluate calibrate\): acme__calc-1$/m,
    );
  });

  it("images ls lists the instance image it built with its Python; prune says what it would remove; a bad kind is one error", async () => {
    const listed = await loclab(["evaluate", "images", "ls", "--json"]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const inventory = JSON.parse(listed.stdout) as {
      images: { kind: string; instance?: string; python?: string; name: string }[];
      caches: { name: string }[];
    };
    const calc = inventory.images.find((image) => image.kind === "instance" && image.instance === "acme__calc-1");
    expect(calc?.python).toMatch(/^3\.11\.\d+$/);
    expect(inventory.caches.map((cache) => cache.name)).toEqual(["roots", "wheels", "pip", "validations"]);
    const table = await loclab(["evaluate", "images", "ls"]);
    expect(table.stdout).toContain(calc!.name);
    expect(table.stdout).toMatch(/base images/);
    const dry = await loclab(["evaluate", "images", "prune", "--kind", "instance", "--dry-run", "--json"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { removed: string[] }).removed).toContain(calc!.name);
    expect(JSON.parse((await loclab(["evaluate", "images", "ls", "--json"])).stdout).images).toHaveLength(
      inventory.images.length,
    );
    const bad = await loclab(["evaluate", "images", "prune", "--kind", "everything"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/--kind: "everything" is not one of base, env, instance/);
  });
});
