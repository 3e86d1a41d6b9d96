import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModelServer } from "@loclab/agent";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// End to end (issue 7): a git mirror of a fixture repository with a planted bug, an issue,
// `loclab localize` against the scripted model server over real HTTP, then `loclab score`
// on the predictions it wrote.
const bin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "loclab-localize-e2e-"));
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });

const buggy = ["def average(values):", "    total = sum(values)", "    return total / (len(values) - 1)", ""].join("\n");
const fixed = ["def average(values):", "    total = sum(values)", "    return total / len(values)", ""].join("\n");

let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
let benchmark: string;

beforeAll(async () => {
  const source = join(work, "source");
  mkdirSync(join(source, "calc"), { recursive: true });
  writeFileSync(join(source, "calc", "__init__.py"), "");
  writeFileSync(join(source, "calc", "ops.py"), buggy);
  writeFileSync(join(source, "calc", "cli.py"), "from calc.ops import average\n\nprint(average([1, 2, 3]))\n");
  git(source, "init", "-q");
  git(source, "add", ".");
  git(source, "commit", "-qm", "base");
  const base = git(source, "rev-parse", "HEAD").trim();
  writeFileSync(join(source, "calc", "ops.py"), fixed);
  const patch = git(source, "diff");
  mkdirSync(join(work, "mirrors"));
  git(work, "clone", "-q", "--bare", source, join(work, "mirrors", "acme__calc.git"));
  benchmark = join(work, "bench.jsonl");
  writeFileSync(benchmark, `${JSON.stringify({ instance_id: "acme__calc-1", repo: "acme/calc", base_commit: base, problem_statement: "average([1, 2, 3]) returns 3.0 instead of 2.0", patch })}\n`);
  const finding = {
    locationExplanation: "average divides the sum by the count",
    rootCause: "the divisor is len(values) - 1",
    solutionIdea: "divide by len(values)",
    dependencies: "calc/cli.py calls average",
    testingImpact: "a test of average on [1, 2, 3]",
  };
  server = await startScriptedModelServer({
    script: [
      { toolCalls: [{ name: "search_code", arguments: JSON.stringify({ query: "def average" }) }] },
      { toolCalls: [{ name: "view_file", arguments: JSON.stringify({ path: "ops.py" }) }] },
      {
        toolCalls: [
          {
            name: "submit_localization",
            arguments: JSON.stringify({ locations: [{ path: "calc/ops.py", startLine: 3, endLine: 3, role: "edit", symbol: "average" }], finding }),
          },
        ],
      },
    ],
  });
});

afterAll(async () => {
  await server?.close();
});

describe("loclab localize, then loclab score", () => {
  it("localizes the planted bug over real HTTP and scores it", async () => {
    const out = join(work, "run");
    const localized = await execa(process.execPath, [bin, "localize", "--benchmark", benchmark, "--repos", join(work, "mirrors"), "--endpoint", server.url, "--model", "scripted", "--out", out], { reject: false });
    expect(localized.exitCode, localized.stderr).toBe(0);
    const [prediction] = readFileSync(join(out, "predictions.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { instanceId: string; files: string[]; finding: { rootCause: string } });
    expect(prediction).toMatchObject({ instanceId: "acme__calc-1", files: ["calc/ops.py"] });
    expect(prediction?.finding.rootCause).toBe("the divisor is len(values) - 1");
    const trajectory = readFileSync(join(out, "trajectories", "acme__calc-1.traj.jsonl"), "utf8").trim().split("\n");
    expect(trajectory.length).toBeGreaterThanOrEqual(4); // header + three steps
    const header = JSON.parse(trajectory[0] ?? "{}") as { provenance?: { tool: string; inputs?: Record<string, unknown> } };
    expect(header.provenance).toMatchObject({ tool: "loclab", inputs: { model: "scripted", toolMode: "native", maxTurns: 20 } });
    const steps = trajectory.slice(1).map((line) => JSON.parse(line) as { messagesDigest?: string; toolCalls: { name: string }[] });
    expect(steps.map((step) => step.toolCalls[0]?.name)).toEqual(["search_code", "view_file", "submit_localization"]);
    for (const step of steps) expect(step.messagesDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(steps.map((step) => step.messagesDigest)).size).toBe(3);
    expect(server.requests.filter((request) => request.status === 200)).toHaveLength(3);

    const scored = await execa(process.execPath, [bin, "score", "--benchmark", benchmark, "--predictions", join(out, "predictions.jsonl"), "--format", "loclab", "--json"], { reject: false });
    expect(scored.exitCode, scored.stderr).toBe(0);
    const { n, metrics } = JSON.parse(scored.stdout) as { n: number; metrics: Record<string, number> };
    expect(n).toBe(1);
    expect(metrics["file.acc@1"]).toBe(1);
    expect(metrics["span.coverageRecall"]).toBe(1);
    expect(metrics["span.precision"]).toBe(1);
  });
});
