import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile, copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModelServer } from "@loclab/agent";
import { scorePredictionsFile } from "@loclab/scoring";
import { runLocalization } from "../commands/localize.js";
import { printTable } from "../table.js";

const BUGGY = ["def average(values):", '    """The arithmetic mean of values."""', "    total = sum(values)", "    return total / (len(values) - 1)", ""].join("\n");
const FIXED = BUGGY.replace("(len(values) - 1)", "len(values)");

/**
 * Stage 5 of `loclab reproduce`: the localizer end to end, on a demo that runs anywhere — a
 * fixture repository with a planted bug (made with real git in a temporary folder, mirrored
 * bare), an issue, the scripted chat-completions server over real HTTP standing in for a model
 * (its turns are written here: search, view, submit), `runLocalization` exactly as
 * `loclab localize` runs it, and the predictions scored like any localizer's. With a real
 * model, point `loclab localize --endpoint` at a vLLM server instead.
 */
export async function localizerDemoStage(options: { out: string }): Promise<{ written: string[] }> {
  const work = await mkdtemp(join(tmpdir(), "loclab-demo-"));
  const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.email=demo@loclab", "-c", "user.name=demo", ...args], { cwd, encoding: "utf8" });
  const server = await startScriptedModelServer({
    script: [
      { content: "Look for the mean computation.", toolCalls: [{ name: "search_code", arguments: JSON.stringify({ query: "def average" }) }] },
      { content: "Read it.", toolCalls: [{ name: "view_file", arguments: JSON.stringify({ path: "ops.py" }) }] },
      {
        content: "The divisor is off by one.",
        toolCalls: [
          {
            name: "submit_localization",
            arguments: JSON.stringify({
              locations: [{ path: "calc/ops.py", startLine: 4, endLine: 4, role: "edit", symbol: "average" }],
              finding: {
                locationExplanation: "average() in calc/ops.py computes the mean the issue reports as wrong",
                rootCause: "it divides the sum by len(values) - 1 instead of len(values)",
                solutionIdea: "divide by len(values)",
                dependencies: "calc/cli.py prints average()",
                testingImpact: "a test that average([1, 2, 3]) == 2.0",
              },
            }),
          },
        ],
      },
    ],
  });
  try {
    const source = join(work, "source");
    await mkdir(join(source, "calc"), { recursive: true });
    await writeFile(join(source, "calc", "__init__.py"), "");
    await writeFile(join(source, "calc", "ops.py"), BUGGY);
    await writeFile(join(source, "calc", "cli.py"), "from calc.ops import average\n\nprint(average([1, 2, 3]))\n");
    git(source, "init", "-q");
    git(source, "add", ".");
    git(source, "commit", "-qm", "base");
    const base = git(source, "rev-parse", "HEAD").trim();
    await writeFile(join(source, "calc", "ops.py"), FIXED);
    const patch = git(source, "diff");
    await mkdir(join(work, "mirrors"));
    git(work, "clone", "-q", "--bare", source, join(work, "mirrors", "demo__calc.git"));
    const benchmark = join(work, "demo.jsonl");
    await writeFile(benchmark, `${JSON.stringify({ instance_id: "demo__calc-1", repo: "demo/calc", base_commit: base, problem_statement: "average([1, 2, 3]) prints 3.0; the mean of 1, 2 and 3 is 2.0.", patch })}\n`);
    const run = join(work, "run");
    const { counts, predictionsPath } = await runLocalization({ benchmark, repos: join(work, "mirrors"), endpoint: server.url, model: "scripted-demo", toolMode: "native", maskPaths: false, maxTurns: 20, out: run });
    const scored = await scorePredictionsFile({ benchmark, predictions: predictionsPath, format: "loclab" });
    const written = [join(options.out, "localizer-demo-predictions.jsonl"), join(options.out, "localizer-demo-trajectory.jsonl"), join(options.out, "localizer-demo-score.json")];
    await copyFile(predictionsPath, written[0] as string);
    await copyFile(join(run, "trajectories", "demo__calc-1.traj.jsonl"), written[1] as string);
    const metrics = Object.fromEntries(Object.values(scored.report.metrics).map((metric) => [metric.key, metric.value]));
    await writeFile(written[2] as string, `${JSON.stringify({ outcomes: Object.fromEntries(counts), n: scored.report.n, metrics }, null, 2)}\n`);
    printTable([
      { what: "outcomes", value: [...counts.entries()].map(([key, n]) => `${key} ${n}`).join(", ") },
      { what: "model requests (scripted server, real HTTP)", value: server.requests.length },
      { what: "file.acc@1", value: metrics["file.acc@1"] ?? "" },
      { what: "span.coverageRecall / span.precision", value: `${metrics["span.coverageRecall"]} / ${metrics["span.precision"]}` },
    ]);
    return { written };
  } finally {
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
}
