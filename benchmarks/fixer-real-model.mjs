// A real-model smoke run of the fixer (issue 36): `loclab serve`'s server on the test model as
// the fixer, in a container of a fixture task with no network, on two tasks (each a planted bug
// that a check script exposes). The test model is far too small to fix them; what matters is
// that the run ends cleanly and the failure breakdown (the analysis package, reading the fixer's
// own trajectories) says how it failed: exits, counted calls, loops, missing files, bad paths.
// Needs a Docker engine (DOCKER_HOST) and root; fetches the test model like `npm test`.
//
//   DOCKER_HOST=unix:///path/docker.sock node benchmarks/fixer-real-model.mjs [--out DIR] [--json FILE]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelClient } from "@loclab/agent";
import { breakdownJson, breakdownRuns, readRun } from "@loclab/analysis";
import { connectDocker } from "@loclab/docker";
import { buildTestbedImage } from "@loclab/evaluation";
import { ContainerSandbox, FGL_SINGLE_AGENT, fixInstance } from "@loclab/fixer";
import { commitFiles } from "@loclab/fixtures";
import { ensureTestModel, startModelServer } from "@loclab/serve";
import { machine } from "./lib/measure.mjs";

let docker;
try {
  ({ docker } = await connectDocker());
} catch (error) {
  console.log(`fixer-real-model: skipped (${error.message})`);
  process.exit(0);
}
const flag = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const started = machine();
const work = mkdtempSync(join(tmpdir(), "loclab-bench-fixer-model-"));
const out = flag("--out") ?? join(work, "run");
const TASKS = [
  {
    instance_id: "loclab-fixtures__calc-1",
    problem_statement: "calc.ops.add(2, 3) returns -1; it should return 5.",
    check: "python3 check_add.py",
  },
  {
    instance_id: "loclab-fixtures__calc-2",
    problem_statement: "calc.ops.mul(4, 3) returns 7; it should return 12.",
    check: "python3 check_mul.py",
  },
];
await commitFiles(join(work, "testbed"), {
  "calc/__init__.py": "",
  "calc/ops.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n",
  "check_add.py": "from calc.ops import add\n\nassert add(2, 3) == 5, add(2, 3)\n",
  "check_mul.py": "from calc.ops import mul\n\nassert mul(4, 3) == 12, mul(4, 3)\n",
});
const image = (
  await buildTestbedImage(docker, {
    repository: join(work, "testbed"),
    name: `loclab-bench/fixer-model:${process.pid}`,
  })
).name;
const model = await ensureTestModel({ onProgress: (line) => console.error(line) });
const server = await startModelServer({ modelPath: model.path, port: 0, parallel: 1 });
const client = createModelClient({
  baseURL: server.baseURL,
  model: server.modelName,
  temperature: 0,
  seed: 1,
  maxOutputTokens: 512,
  requestTimeoutMs: 600_000,
});
const limits = { ...FGL_SINGLE_AGENT, callBudget: 12, wallMs: 8 * 60_000 };
const attempts = [];
for (const task of TASKS) {
  const sandbox = await ContainerSandbox.start(docker, { image, attempt: `bench-${process.pid}` });
  try {
    const result = await fixInstance({
      instance: task,
      sandbox,
      client,
      trajectoryPath: join(out, `${task.instance_id}.traj.jsonl`),
      limits,
    });
    const check = await sandbox.run(task.check, { timeoutMs: 60_000 });
    attempts.push({ task: task.instance_id, result, resolved: check.exitCode === 0 });
    console.error(
      `${task.instance_id}: ${result.exit}, ${result.calls} calls, ${result.turns} turns, ${Math.round(result.wallMs / 1000)} s, resolved ${check.exitCode === 0}`,
    );
  } finally {
    await sandbox.remove();
  }
}
await server.close();
await docker.getImage(image).remove({ force: true });
const run = await readRun({ name: "test-model", format: "loclab", dir: out });
const resolved = new Set(attempts.filter((a) => a.resolved).map((a) => a.task));
const [row] = breakdownJson(breakdownRuns([{ name: "test-model", summaries: run.summaries, resolved }])).runs;
const result = {
  machine: started,
  model: server.modelName,
  limits: { callBudget: limits.callBudget, wallSeconds: limits.wallMs / 1000, maxOutputTokens: 512 },
  attempts: attempts.map(({ task, result, resolved }) => ({
    task,
    resolved,
    exit: result.exit,
    calls: result.calls,
    turns: result.turns,
    seconds: Math.round(result.wallMs / 100) / 10,
    tokens: result.usage.totalTokens,
    loops: result.loops.length,
    recoveries: result.recoveries.length,
    toolErrors: result.toolResults.filter((tool) => tool.error).map((tool) => `${tool.tool}: ${tool.error}`),
    patchLines: result.patch === "" ? 0 : result.patch.split("\n").length,
  })),
  breakdown: row,
  problems: run.problems,
};
console.log(JSON.stringify(result, null, 2));
const json = flag("--json");
if (json) writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
if (!flag("--out")) rmSync(work, { recursive: true, force: true });
