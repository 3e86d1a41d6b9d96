// A real-model smoke run of repair runs (issue 36): `loclab serve`'s server on the test model
// (SmolLM2-135M-Instruct, CPU) as the fixer, through the runner (`kind: repair`) on two calc
// fixture tasks, both arms (single, two-agent), one seed; every final patch evaluated in a fresh
// container. The model is far too small to fix anything; what matters is that the run ends
// cleanly and its breakdown says how it failed: exits, counted calls, loops, missing files, bad
// paths. Prints the cells' verdicts and the breakdown rows as JSON.
//
//   npm run build && DOCKER_HOST=unix:///path/docker.sock node benchmarks/repair-real-model.mjs [--json FILE] [--keep]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCalcFixture, writeCalcRepairTasks } from "@loclab/fixtures";
import { repairRunTag, startRepairRun, writeRepairReport } from "@loclab/repair";
import { parseRunSpec } from "@loclab/runner";
import { ensureTestModel, startModelServer } from "@loclab/serve";
import { machine } from "./lib/measure.mjs";

const flag = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const started = machine();
const work = mkdtempSync(join(tmpdir(), "loclab-bench-repair-model-"));
const calc = await buildCalcFixture({ dir: join(work, "calc") });
const tasks = await writeCalcRepairTasks(calc, { count: 2, dir: work });
const model = await ensureTestModel({ onProgress: (line) => console.error(line) });
const server = await startModelServer({ modelPath: model.path, port: 0, parallel: 2 });
const repair = {
  arms: ["single", "two-agent"],
  callBudget: 12,
  wallSeconds: 240,
  temperature: 0.7,
  maxOutputTokens: 256,
  localizer: { maxCalls: 4 },
  evaluation: { specs: tasks.specs },
};
const spec = parseRunSpec({
  kind: "repair",
  benchmark: tasks.benchmark,
  seeds: [1],
  endpoints: [{ baseURL: server.baseURL, model: server.modelName, maxConcurrency: 2 }],
  repos: calc.mirrors,
  out: join(work, "run"),
  cacheDir: join(work, "workspaces"),
  repair,
});
const t0 = performance.now();
const summary = await startRepairRun(spec, {
  onEvent: (event) => {
    if (event.type === "attempt-end")
      console.error(
        `${event.cell} ${event.record.instanceId}: ${event.record.outcome}, exit ${event.record.exit}, ${Math.round(event.record.wallMs / 1000)} s${event.record.error ? `, ${event.record.error}` : ""}`,
      );
  },
});
const seconds = (performance.now() - t0) / 1000;
await server.close();
const report = await writeRepairReport(spec.out);
const result = {
  machine: started,
  model: server.modelName,
  repair,
  seconds: Math.round(seconds),
  summary: { keys: summary.keys, done: summary.done, resolved: summary.resolved, outcomes: summary.outcomes },
  cells: report.cells,
  attempts: [...report.breakdown.records].flatMap(([cell, records]) =>
    records.map((record) => ({
      cell,
      task: record.instanceId,
      exit: record.exit,
      calls: record.repair.calls,
      turns: record.turns,
      seconds: Math.round(record.wallMs / 100) / 10,
      tokens: record.usage.totalTokens,
      localizerTurns: record.repair.agents.localizer.turns,
      loops: record.repair.loops,
      toolErrors: record.repair.toolErrors,
      evaluation: record.repair.evaluation.status,
      patchFiles: record.repair.patch.files,
    })),
  ),
  breakdown: report.json.runs,
  problems: report.breakdown.problems,
  tag: repairRunTag(spec.out),
};
console.log(JSON.stringify(result, null, 2));
const json = flag("--json");
if (json) writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
if (!process.argv.includes("--keep")) rmSync(work, { recursive: true, force: true });
