// A real-model smoke run of SHERLOC's transfer (issue 37): `loclab serve`'s server on the test
// model (SmolLM2-135M-Instruct, CPU) as the localizer, the judge and the fixer, through the
// runner (`kind: repair`) on two calc fixture tasks, all five arms (single, locations, findings,
// judged, oracle), one seed; every final patch evaluated in a fresh container. The model is far
// too small to localize or repair; what matters is that the whole pipeline runs and its records
// say what happened: what the localizer handed on, what the judge answered (its raw answers),
// what was injected and why not, how each fixer ended. Prints them and the transfer report as
// JSON.
//
//   npm run build && DOCKER_HOST=unix:///path/docker.sock node benchmarks/transfer-real-model.mjs [--json FILE] [--keep]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelClient, judgeFinding } from "@loclab/agent";
import { buildCalcFixture, writeCalcRepairTasks } from "@loclab/fixtures";
import { readStageResult, startRepairRun, writeTransferReport } from "@loclab/repair";
import { parseRunSpec } from "@loclab/runner";
import { readRunFolder } from "@loclab/schemas";
import { ensureTestModel, startModelServer } from "@loclab/serve";
import { machine } from "./lib/measure.mjs";

const flag = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const started = machine();
const work = mkdtempSync(join(tmpdir(), "loclab-bench-transfer-model-"));
const calc = await buildCalcFixture({ dir: join(work, "calc") });
const tasks = await writeCalcRepairTasks(calc, { count: 2, dir: work });
const model = await ensureTestModel({ onProgress: (line) => console.error(line) });
const server = await startModelServer({ modelPath: model.path, port: 0, parallel: 2 });
const settings = {
  localizer: { maxTurns: 6, maxOutputTokens: 256, temperature: 0.7 },
  judge: { endpoints: [{ baseURL: server.baseURL, model: server.modelName }], maxOutputTokens: 400 },
  repair: {
    arms: ["single", "locations", "findings", "judged", "oracle"],
    callBudget: 8,
    wallSeconds: 180,
    temperature: 0.7,
    maxOutputTokens: 256,
    evaluation: { specs: tasks.specs },
  },
};
const spec = parseRunSpec({
  kind: "repair",
  benchmark: tasks.benchmark,
  seeds: [1],
  endpoints: [{ baseURL: server.baseURL, model: server.modelName, maxConcurrency: 2 }],
  repos: calc.mirrors,
  out: join(work, "run"),
  cacheDir: join(work, "workspaces"),
  ...settings,
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
// The 135M localizer may hand nothing on (then no judge call is made in the run): the judge is
// also asked directly, with the run's judge settings, about a correct hand-written finding of
// each task, so that what the test model answers as a judge is on record either way.
const direct = [];
for (const row of tasks.rows) {
  const client = createModelClient({
    baseURL: server.baseURL,
    model: server.modelName,
    temperature: 0,
    maxOutputTokens: settings.judge.maxOutputTokens,
    maxRetries: 0,
  });
  const judgement = await judgeFinding({
    client,
    instance: row,
    prediction: {
      instanceId: row.instance_id,
      files: ["calc/ops.py"],
      locations: [{ path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit", symbol: "average" }],
      finding: {
        locationExplanation: "average computes the mean the issue reports as wrong.",
        rootCause: "It divides the sum by len(values) - 1 instead of len(values).",
        solutionIdea: "Divide by len(values).",
        dependencies: "calc/cli.py prints average's result.",
        testingImpact: "tests/test_ops.py should test average.",
      },
    },
  });
  direct.push({
    task: row.instance_id,
    status: judgement.status,
    composite: judgement.composite ?? null,
    error: judgement.error ?? null,
    answers: judgement.answers,
  });
}
await server.close();
const records = (await readRunFolder(spec.out)).records.filter((record) => record.outcome === "evaluated");
const stages = {};
const judgements = {};
for (const record of records) {
  const handOff = record.repair.handOff;
  if (handOff?.localization && !stages[handOff.localization.key]) {
    const stage = await readStageResult(join(spec.out, handOff.localization.path));
    stages[handOff.localization.key] = {
      task: stage.instanceId,
      outcome: stage.outcome,
      exit: stage.exit,
      turns: stage.turns,
      tokens: stage.usage.totalTokens,
      prediction: stage.prediction ?? null,
      error: stage.error ?? null,
    };
  }
  const path = handOff?.judgement?.path;
  if (path && !judgements[path]) judgements[path] = JSON.parse(readFileSync(join(spec.out, path), "utf8"));
}
const transfer = await writeTransferReport(spec.out, { resamples: 2000 });
const result = {
  machine: started,
  model: server.modelName,
  settings: { ...settings, judge: { ...settings.judge, endpoints: "the same server" } },
  seconds: Math.round(seconds),
  summary: { keys: summary.keys, done: summary.done, resolved: summary.resolved, outcomes: summary.outcomes },
  stages: Object.values(stages),
  directJudgements: direct,
  judgements: Object.values(judgements).map((j) => ({
    status: j.status,
    scores: j.scores ?? null,
    error: j.error ?? null,
    answers: j.answers,
  })),
  attempts: records.map((record) => ({
    arm: record.arm,
    task: record.instanceId,
    injected: record.repair.handOff?.injected ?? null,
    reason: record.repair.handOff?.reason ?? null,
    judge: record.repair.handOff?.judgement
      ? {
          status: record.repair.handOff.judgement.status,
          composite: record.repair.handOff.judgement.composite ?? null,
          cached: record.repair.handOff.judgement.cached,
        }
      : null,
    exit: record.exit,
    calls: record.repair.calls,
    tokens: record.usage.totalTokens,
    loops: record.repair.loops.count,
    toolErrors: record.repair.toolErrors,
    evaluation: record.repair.evaluation.status,
    patchFiles: record.repair.patch.files,
  })),
  transfer: transfer.reports.map((report) => ({
    control: report.control,
    arms: report.arms.map((row) => ({
      arm: row.arm,
      n: row.n,
      armRate: row.armRate,
      baselineRate: row.baselineRate,
      b: row.baselineOnly,
      c: row.armOnly,
      p: row.p,
      injected: row.injected,
      tokens: row.tokens,
    })),
    bins: report.bins,
  })),
};
console.log(JSON.stringify(result, null, 2));
const json = flag("--json");
if (json) writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
if (!process.argv.includes("--keep")) rmSync(work, { recursive: true, force: true });
