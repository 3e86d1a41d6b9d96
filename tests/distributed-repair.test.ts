import { readdirSync, readFileSync, rmSync, statSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  type ChatCompletionRequest,
  type ScriptTurn,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "@loclab/agent";
import {
  buildCalcFixture,
  type CalcFixture,
  type CalcRepairTasks,
  calcReportNumber,
  writeCalcRepairTasks,
} from "@loclab/fixtures";
import { type RedisServer, runWorker, startDistributedRun, startRedisServer } from "@loclab/queue";
import { repairRunKind, startRepairRun } from "@loclab/repair";
import { parseRunSpec } from "@loclab/runner";
import { readRunFolder, type RunRecord } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIX, LOCATED, README, SUBMIT } from "./calc-fixer-calls.js";

// A repair run on BullMQ workers, on CI's Docker engine: each worker runs the fixer in a
// container of the task's image and evaluates its patch in another, in a run folder of its
// own; the coordinator commits the records and every file the attempts wrote (trajectories,
// patches, reports, the evaluation's folders, the localizer stages the arms share). The same
// spec run locally gives the same outcomes and the same files.
let work: string;
let fixture: CalcFixture;
let tasks: CalcRepairTasks;
let server: ScriptedModelServer;
let redis: Pick<RedisServer, "url"> & { stop?: () => Promise<void> };

/** Task 1 is fixed; task 2 is fixed when handed the location, and otherwise edits the README. */
function policy(request: ChatCompletionRequest): ScriptTurn {
  const text = request.messages
    .map((message) => (typeof message.content === "string" ? message.content : ""))
    .join("\n");
  const tools = (request.tools ?? []).map((tool) => tool.function.name);
  if (tools.includes("submit_localization")) return { toolCalls: [LOCATED] };
  const turn = request.messages.filter((message) => message.role === "assistant").length;
  const handed = text.includes("calc/ops.py:8-12");
  const steps =
    calcReportNumber(text) === 1 || handed
      ? [{ toolCalls: [FIX] }, { toolCalls: [SUBMIT] }]
      : [{ toolCalls: [README] }, { toolCalls: [SUBMIT] }];
  return steps[Math.min(turn, steps.length - 1)] as ScriptTurn;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "loclab-distributed-repair-"));
  fixture = await buildCalcFixture({ dir: join(work, "calc") });
  tasks = await writeCalcRepairTasks(fixture, { count: 2, dir: work });
  server = await startScriptedModelServer({ script: (request) => policy(request) });
  const given = process.env.LOCLAB_TEST_REDIS_URL;
  redis = given ? { url: given } : await startRedisServer();
});
afterAll(async () => {
  await server?.close();
  await redis?.stop?.();
  if (work) rmSync(work, { recursive: true, force: true });
});

function spec(name: string) {
  return parseRunSpec({
    kind: "repair",
    benchmark: tasks.benchmark,
    seeds: [1, 2],
    endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 2 }],
    repos: fixture.mirrors,
    out: join(work, name),
    cacheDir: join(work, "workspaces"),
    retry: { requestRetries: 0, attemptsPerKey: 1 },
    localizer: { maxTurns: 3 },
    repair: {
      arms: ["single", "locations", "findings"],
      callBudget: 6,
      wallSeconds: 300,
      evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations") },
    },
  });
}

/** The run folder's files, relative; inside an evaluation's folder the run id (each run's own tag) is left out. */
function files(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(dir, path));
    }
  };
  walk(dir);
  return found
    .filter((path) => path !== ".loclab.lock")
    .map((path) => path.replace(/(\.eval\/logs\/run_evaluation\/)[^/]+\//, "$1<run>/"))
    .sort();
}
const outcomes = (records: readonly RunRecord[]) =>
  Object.fromEntries(
    records.map((record) => [
      `${record.seed}/${record.arm}/${record.instanceId}`,
      `${record.outcome} ${record.exit} resolved=${record.repair?.resolved} files=${record.repair?.patch.files.join(",")}`,
    ]),
  );

describe("a repair run on BullMQ workers", () => {
  it("two workers, three arms × two seeds on two tasks: the same outcomes and the same files as the local run; each localizer stage run once across the workers", async () => {
    const local = spec("local");
    expect(await startRepairRun(local)).toMatchObject({ keys: 12, done: 12, complete: true });
    const localizerRequests = () =>
      server.requests.filter((request) =>
        request.body?.tools?.some((tool) => tool.function.name === "submit_localization"),
      ).length;
    const localStages = localizerRequests();
    expect(localStages).toBe(4);

    const distributed = spec("distributed");
    const controller = new AbortController();
    const workers = [0, 1].map((i) =>
      runWorker({
        queue: redis.url,
        queueName: "repair-test",
        concurrency: 2,
        workDir: join(work, `worker-${i}`),
        repairKind: repairRunKind(),
        signal: controller.signal,
      }),
    );
    const summary = await startDistributedRun(distributed, {
      queue: redis.url,
      queueName: "repair-test",
      pollMs: 200,
      repairKind: repairRunKind(),
    });
    controller.abort();
    const executed = await Promise.all(workers);
    expect(summary).toMatchObject({ keys: 12, done: 12, resolved: 10, complete: true });
    expect(summary.queue).toMatchObject({ committed: 12, duplicates: 0 });
    expect(executed.reduce((sum, worker) => sum + worker.executions, 0)).toBe(12);
    // One localizer stage per task × seed across both workers (the other arm's worker waited for
    // it, or found it in Redis), and exactly one attempt per stage says it ran it.
    expect(localizerRequests() - localStages).toBe(4);

    const [a, b] = [await readRunFolder(local.out), await readRunFolder(distributed.out)];
    expect(outcomes(b.records)).toEqual(outcomes(a.records));
    // Task 2 is resolved only when handed the localizer stage's location.
    expect(outcomes(b.records)["1/single/acme__calc-2"]).toMatch(/resolved=false files=README.md/);
    expect(outcomes(b.records)["1/locations/acme__calc-2"]).toMatch(/resolved=true files=calc\/ops.py/);
    expect(outcomes(b.records)["2/findings/acme__calc-2"]).toMatch(/resolved=true files=calc\/ops.py/);
    expect(files(distributed.out)).toEqual(files(local.out));
    const ran = new Map<string, number>();
    for (const record of b.records) {
      const stage = record.repair?.handOff?.localization;
      if (stage) ran.set(stage.key, (ran.get(stage.key) ?? 0) + (stage.ran ? 1 : 0));
    }
    expect([...ran.values()]).toEqual([1, 1, 1, 1]);
    // The records point at files that are there: the patch, the report.
    for (const record of b.records) {
      expect(readFileSync(join(distributed.out, record.repair?.patch.path as string), "utf8").length).toBeGreaterThan(
        0,
      );
      expect(
        JSON.parse(readFileSync(join(distributed.out, record.repair?.evaluation.report as string), "utf8")),
      ).toHaveProperty(record.instanceId);
    }
  });
});
