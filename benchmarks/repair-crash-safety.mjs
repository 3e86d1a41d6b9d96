// Benchmark (issue 36, crash safety of repair runs): a repair run of 20 attempt keys (10 calc
// tasks × 2 seeds, the single-agent fixer) by the real CLI (`loclab run SPEC`, then `loclab run
// --resume DIR`) against the scripted model server in this process (real HTTP, 150–600 ms per
// answer), each attempt a sandbox container of the task's local instance image and an
// evaluation container; the runner killed with SIGKILL at KILLS random moments (default 5) and
// resumed each time, then resumed to the end. Counted afterwards from the run folder and the
// Docker engine: keys with exactly one final record, keys lost, keys duplicated, attempts
// recorded as interrupted, containers of the run left (sandboxes and evaluation containers, by
// the run's labels). Goal: 0 lost, 0 duplicated, 0 containers left. Nothing is asserted.
//
//   npm run build && node benchmarks/repair-crash-safety.mjs      (needs a Docker engine: DOCKER_HOST or
//   /var/run/docker.sock; scripts/lib/dockerd.mjs starts one as CI does)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModelServer } from "@loclab/agent";
import { connectDocker } from "@loclab/docker";
import { buildCalcFixture, calcReportNumber, writeCalcRepairTasks } from "@loclab/fixtures";
import { repairRunTag } from "@loclab/repair";
import { seededRandom } from "@loclab/statistics";
import { cliSession } from "./lib/cli-session.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-repair-crash-safety.json");
const KILLS = Number(process.env.KILLS ?? 5);
const rng = seededRandom(Number(process.env.SEED ?? 36));

const work = mkdtempSync(join(tmpdir(), "loclab-repair-crash-"));
const fixture = await buildCalcFixture({ dir: join(work, "calc") });
const tasks = await writeCalcRepairTasks(fixture, { count: 10, dir: work });
const call = (name, args) => ({ name, arguments: JSON.stringify(args) });
const FIX = call("edit_file", {
  path: "calc/ops.py",
  old_text: "return sum(values) / (len(values) - 1)",
  new_text: "return sum(values) / len(values)",
});
const WRONG = call("edit_file", { path: "README.md", old_text: "A tiny calculator.", new_text: "A calculator." });
// Odd tasks: read, fix, run the tests, submit; even tasks: edit the wrong file, submit. Each answer
// after a random 150–600 ms, so that kills land anywhere: in a model call, a command, an evaluation.
const answerRng = seededRandom(7);
const server = await startScriptedModelServer({
  script: (request) => {
    const text = request.messages
      .map((message) => (typeof message.content === "string" ? message.content : ""))
      .join("\n");
    const task = calcReportNumber(text) ?? 1;
    const turn = request.messages.filter((message) => message.role === "assistant").length;
    const steps =
      task % 2 === 1
        ? [
            { toolCalls: [call("read_file", { path: "calc/ops.py" })] },
            { toolCalls: [FIX] },
            { toolCalls: [call("run_command", { command: "python -m pytest -q tests" })] },
            { toolCalls: [call("submit_patch", {})] },
          ]
        : [{ toolCalls: [WRONG] }, { toolCalls: [call("submit_patch", {})] }];
    return {
      fault: "delay",
      ms: 150 + Math.round(answerRng.nextFloat() * 450),
      then: steps[Math.min(turn, steps.length - 1)],
    };
  },
});
const dir = join(work, "run");
const specFile = join(work, "spec.json");
writeFileSync(
  specFile,
  JSON.stringify(
    {
      kind: "repair",
      benchmark: tasks.benchmark,
      seeds: [1, 2],
      endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 2 }],
      repos: fixture.mirrors,
      out: dir,
      cacheDir: join(work, "workspaces"),
      // A fresh result cache: a task's second seed makes the same patch and finds its verdict there.
      repair: { callBudget: 8, evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations-unused") } },
    },
    null,
    2,
  ),
);

const { docker } = await connectDocker();
const tag = repairRunTag(dir);
const containersOfRun = async () =>
  (await docker.listContainers({ all: true, filters: { label: [`loclab.repair.run=${tag}`] } })).length +
  (await docker.listContainers({ all: true, filters: { label: [`loclab.eval.run=${tag}`] } })).length;

let stderr = "";
const session = (args, killAfterMs) => cliSession(args, { killAfterMs, onStderr: (text) => (stderr += text) });

const started = performance.now();
const sessions = [];
for (let i = 0; i < KILLS; i += 1) {
  // The first session builds the instance images (tens of seconds): its kill comes later.
  const killAfterMs = (i === 0 ? 20_000 : 2_000) + Math.round(rng.nextFloat() * 6_000);
  const ended = await session(i === 0 ? ["run", specFile] : ["run", "--resume", dir], killAfterMs);
  sessions.push({ killAfterMs, ...ended, containersLeftByTheKill: await containersOfRun() });
}
const last = await session(["run", "--resume", dir]);
const seconds = (performance.now() - started) / 1000;
await server.close();

const records = readFileSync(join(dir, "attempts.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const finals = new Map();
for (const record of records)
  if (record.outcome === "evaluated") finals.set(record.key, (finals.get(record.key) ?? 0) + 1);
const result = {
  kills: sessions.filter((s) => s.signal === "SIGKILL").length,
  sessionsEndedBeforeKill: sessions.filter((s) => s.signal !== "SIGKILL").length,
  containersLeftAfterEachKill: sessions.map((s) => s.containersLeftByTheKill),
  finalSessionExit: last.code,
  keys: manifest.attemptKeys,
  keysWithExactlyOneFinalRecord: [...finals.values()].filter((n) => n === 1).length,
  lost: manifest.attemptKeys - finals.size,
  duplicated: [...finals.values()].filter((n) => n > 1).length,
  attemptRecords: records.length,
  interruptedAttempts: records.filter((record) => record.error?.startsWith("interrupted")).length,
  resolved: records.filter((record) => record.outcome === "evaluated" && record.repair.resolved).length,
  containersLeftAtTheEnd: await containersOfRun(),
  seconds: +seconds.toFixed(1),
  killMoments: sessions.map((s) => s.killAfterMs),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify({ benchmark: "repair-crash-safety", node: process.version, ...result }, null, 2)}\n`,
);
await fixture.dispose();
rmSync(work, { recursive: true, force: true });
