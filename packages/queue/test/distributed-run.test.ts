import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type PolicyModelServer, startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { parseRunSpec, readRunStatus, type RunSpecInput, scoreRun, startRun } from "@loclab/runner";
import { type RunRecord, RunRecordSchema, runLayout } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Queue } from "bullmq";
import {
  type RedisServer,
  resumeDistributedRun,
  runWorker,
  startDistributedRun,
  startRedisServer,
  type WorkerEvent,
} from "../src/index.js";

// Real runs on a real queue: Debian's redis-server started here (own port and folder, AOF on),
// BullMQ workers in this process, the toy benchmark (real git mirrors), the policy model server
// over real HTTP.
let toy: ToyBenchmark;
// The Redis `npm test` started (LOCLAB_TEST_REDIS_URL), or one of this file's own.
let redis: Pick<RedisServer, "url"> & { stop?: () => Promise<void> };
const servers: PolicyModelServer[] = [];
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 3 });
  const given = process.env.LOCLAB_TEST_REDIS_URL;
  redis = given ? { url: given } : await startRedisServer();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await redis?.stop?.();
  await toy?.dispose();
});

async function specFor(server: PolicyModelServer, extra: Partial<RunSpecInput> = {}) {
  const out = await mkdtemp(join(tmpdir(), "loclab-queue-"));
  return parseRunSpec({
    name: "queue-test",
    benchmark: toy.benchmark,
    seeds: [1, 2],
    controls: [{ kind: "plain" }, { kind: "masked" }, { kind: "shuffled", seed: 7 }],
    endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 2 }],
    repos: toy.mirrors,
    out: join(out, "run"),
    retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2 },
    ...extra,
  });
}

/** Workers in this process until `stop()`; their events kept. */
function startWorkers(n: number, options: { concurrency: number; queueName: string }) {
  const controller = new AbortController();
  const events: WorkerEvent[] = [];
  const workDir = join(tmpdir(), `loclab-workers-${process.pid}-${Date.now()}`);
  const done = Array.from({ length: n }, (_, i) =>
    runWorker({
      queue: redis.url,
      queueName: options.queueName,
      concurrency: options.concurrency,
      workDir: join(workDir, String(i)),
      signal: controller.signal,
      onEvent: (event) => events.push(event),
    }),
  );
  return {
    events,
    stop: async () => {
      controller.abort();
      return Promise.all(done);
    },
  };
}

const ledger = (dir: string): RunRecord[] =>
  readFileSync(runLayout.ledger(dir), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => RunRecordSchema.parse(JSON.parse(line)));

/** Every file of a run folder, relative, JSON(L) normalised: times, durations and the folder's own path aside. */
function folderContents(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), normalise(readFileSync(path, "utf8"), dir, name));
    }
  };
  walk(dir);
  return files;
}
// Times, durations, hosts and commands; and the spec's digest, a hash over its `out` (the folder's own path).
const VOLATILE = /(At|Ms|Seconds|seconds|elapsed|time|Time|duration|Duration|pid|host|command|specDigest)$/;
function normalise(text: string, dir: string, name: string): string {
  const scrub = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(scrub);
    if (value && typeof value === "object")
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !VOLATILE.test(key))
          .map(([key, inner]) => [key, scrub(inner)]),
      );
    return typeof value === "string" ? value.split(dir).join("<run>") : value;
  };
  if (name.endsWith(".json")) return JSON.stringify(scrub(JSON.parse(text)), null, 1);
  // A log's lines are in the order attempts ended, which varies locally too (two at once): compared as sets.
  if (name.endsWith(".jsonl"))
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.stringify(scrub(JSON.parse(line))))
      .sort()
      .join("\n");
  return text.split(dir).join("<run>");
}

/** Where two texts part: the first differing line of each, or which side lacks the file. */
function firstDifference(a: string | undefined, b: string | undefined): string {
  if (a === undefined) return "only in the distributed run";
  if (b === undefined) return "only in the local run";
  const [x, y] = [a.split("\n"), b.split("\n")];
  const i = x.findIndex((line, index) => line !== y[index]);
  return `local ${x[i]?.slice(0, 200)} | distributed ${y[i]?.slice(0, 200)}`;
}

describe("a run spec on BullMQ workers over Redis", () => {
  it("gives the run folder the local runner gives (the diff is empty, times and hosts aside); each key committed once; per-endpoint concurrency held across workers", async () => {
    const local = await startPolicyModelServer();
    const localSpec = await specFor(local);
    const localSummary = await startRun(localSpec);
    expect(localSummary).toMatchObject({ keys: 36, done: 36, complete: true });
    // The same server again (same port: the spec is the same), now with a model's latency, so
    // that attempts overlap and the limit is tested; its in-flight gauge starts from zero.
    const port = Number(new URL(local.url).port);
    await local.close();
    const remote = await startPolicyModelServer({ delayMs: 30, port });
    servers.push(remote);

    // Three workers of concurrency 2 (6 attempts wanted at once) on an endpoint of 2 slots.
    const spec = await specFor(remote);
    const workers = startWorkers(3, { concurrency: 2, queueName: "diff-test" });
    const summary = await startDistributedRun(spec, { queue: redis.url, queueName: "diff-test", pollMs: 200 });
    const stopped = await workers.stop();
    expect(summary).toMatchObject({ keys: 36, done: 36, complete: true });
    expect(summary.queue).toMatchObject({ enqueued: 36, committed: 36, duplicates: 0, failedJobs: 0 });
    expect(stopped.reduce((sum, worker) => sum + worker.executions, 0)).toBe(36);
    // Work was shared: every worker ran some.
    expect(stopped.every((worker) => worker.executions > 0)).toBe(true);
    // The limit, measured by the server: never more than 2 requests at once.
    expect(remote.peakInFlight()).toBe(2);

    const records = ledger(spec.out);
    expect(records).toHaveLength(36);
    expect(new Set(records.map((record) => record.key)).size).toBe(36);

    // The two folders, file by file: the same files and, normalised, the same contents.
    const a = folderContents(localSpec.out);
    const b = folderContents(spec.out);
    const ignore = (path: string) => path === ".loclab.lock";
    const differences = [...new Set([...a.keys(), ...b.keys()])]
      .filter((path) => !ignore(path))
      .filter((path) => a.get(path) !== b.get(path))
      .map((path) => `${path}: ${firstDifference(a.get(path), b.get(path))}`);
    expect(differences).toEqual([]);

    // The coordinator's folder reads as any run folder.
    expect((await readRunStatus(spec.out)).summary.complete).toBe(true);
    const [scoreA, scoreB] = [await scoreRun(localSpec.out), await scoreRun(spec.out)];
    expect(scoreB.cells).toEqual(scoreA.cells);
    expect(existsSync(join(spec.out, "duplicates.jsonl"))).toBe(false);
    console.log(`local and distributed run folders: ${a.size} files compared, ${differences.length} differences`);
  });

  it("adds again the jobs Redis lost (drained from the queue before any worker took them), then runs them", async () => {
    const server = await startPolicyModelServer();
    servers.push(server);
    const spec = await specFor(server, { seeds: [1], controls: [{ kind: "plain" }] });
    const queueName = "lost-jobs-test";
    const notes: string[] = [];
    const run = startDistributedRun(spec, {
      queue: redis.url,
      queueName,
      pollMs: 100,
      onEvent: (event) => event.type === "note" && notes.push(event.message),
    });
    // No worker yet: once the jobs are in, they are drained from the queue (what a Redis that
    // lost its data would show); the coordinator finds them missing and adds them again.
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    while (((await queue.getJobCounts("waiting")).waiting ?? 0) < 6)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await queue.drain();
    while (!notes.some((note) => /missing from the queue/.test(note)))
      await new Promise((resolve) => setTimeout(resolve, 20));
    const workers = startWorkers(1, { concurrency: 2, queueName });
    const summary = await run;
    await workers.stop();
    await queue.close();
    expect(summary).toMatchObject({ keys: 6, done: 6, complete: true });
    expect(summary.queue).toMatchObject({ enqueued: 6, requeued: 6, committed: 6, duplicates: 0 });
  });

  it("stops at the run's token budget: jobs not yet taken leave the queue; resuming runs the rest", async () => {
    const server = await startPolicyModelServer({ delayMs: 50 });
    servers.push(server);
    const spec = await specFor(server, { budgets: { run: { tokens: 1 } } });
    const queueName = "budget-test";
    const workers = startWorkers(1, { concurrency: 1, queueName });
    const first = await startDistributedRun(spec, { queue: redis.url, queueName, pollMs: 100 });
    expect(first.stoppedBy).toBe("run-token-budget");
    expect(first.done).toBeGreaterThan(0);
    expect(first.done).toBeLessThan(36);
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    expect(await queue.getJobCounts("waiting", "active", "delayed")).toMatchObject({
      waiting: 0,
      active: 0,
      delayed: 0,
    });
    await queue.close();
    const rest = await resumeDistributedRun(spec.out, { queue: redis.url, queueName, pollMs: 100 });
    await workers.stop();
    // Resumed with the spec's budget again: it stops after the next result; without it, the run finishes.
    expect(rest.done).toBeGreaterThan(first.done);
  });
});
