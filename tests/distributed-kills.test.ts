import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PolicyModelServer, startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { type RedisServer, resumeDistributedRun, startDistributedRun, startRedisServer } from "@loclab/queue";
import { parseRunSpec, type RunEvent } from "@loclab/runner";
import { Queue } from "bullmq";
import { isFinalOutcome, type RunRecord, RunRecordSchema, runLayout } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loclabBin } from "./helpers.js";

// `loclab worker` processes (the CLI, as a researcher starts them) on Debian's redis-server,
// the coordinator in this process: workers SIGKILLed mid-attempt, one frozen (SIGSTOP) past
// its job's lock so that another runs the job too, and Redis itself restarted mid-run.
let toy: ToyBenchmark;
let redis: RedisServer;
let server: PolicyModelServer;
const workers = new Set<ChildProcess>();
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 6 });
  redis = await startRedisServer();
  server = await startPolicyModelServer({ delayMs: 300, turns: 4 });
});
afterAll(async () => {
  for (const worker of workers) worker.kill("SIGKILL");
  await server?.close();
  await redis?.stop();
  await toy?.dispose();
});

interface Worker {
  child: ChildProcess;
  /** Attempts started and not yet ended, from its progress lines. */
  running: () => number;
}

function startWorker(queueName: string, workDir: string): Worker {
  const child = spawn(
    process.execPath,
    [
      loclabBin,
      "worker",
      "--queue",
      redis.url,
      "--queue-name",
      queueName,
      "--concurrency",
      "2",
      "--lock-seconds",
      "3",
      "--stalled-seconds",
      "1",
      "--work-dir",
      workDir,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  workers.add(child);
  child.on("exit", () => workers.delete(child));
  let started = 0;
  let ended = 0;
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    started += (text.match(/^loclab: start /gm) ?? []).length;
    ended += (text.match(/^loclab: end /gm) ?? []).length;
  });
  child.stdout?.resume();
  return { child, running: () => started - ended };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `worker` to be in an attempt; the run must not have ended meanwhile (the test's moments would be moot). */
async function whenRunning(worker: Worker, ended: () => boolean): Promise<void> {
  while (worker.running() === 0) {
    if (ended()) throw new Error("the run ended before the worker took another attempt: make the attempts longer");
    await sleep(20);
  }
}

describe("distributed runs survive killed workers, a frozen worker and a Redis restart", () => {
  it("commits every key exactly once; the frozen worker's late result is counted as a duplicate execution, not committed", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "loclab-kills-")), "run");
    const spec = parseRunSpec({
      benchmark: toy.benchmark,
      seeds: [1, 2],
      controls: [{ kind: "plain" }, { kind: "masked" }],
      endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 4 }],
      repos: toy.mirrors,
      out,
      retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2 },
    });
    const queueName = "kills-test";
    const workDir = await mkdtemp(join(tmpdir(), "loclab-kills-workers-"));
    const pool = [0, 1, 2].map(() => startWorker(queueName, workDir));
    const events: RunEvent[] = [];
    let committed = 0;
    const run = startDistributedRun(spec, {
      queue: redis.url,
      queueName,
      pollMs: 200,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "attempt-end") committed += 1;
      },
    });
    let ended = false;
    void run.finally(() => {
      ended = true;
    });
    const until = async (n: number) => {
      while (committed < n) {
        if (ended) throw new Error(`the run ended before ${n} commits`);
        await sleep(20);
      }
    };

    // Two SIGKILLs of a worker in the middle of an attempt, each replaced by a new worker.
    const kills: number[] = [];
    for (const after of [6, 18]) {
      await until(after);
      const victim = pool.find((worker) => worker.running() > 0) ?? (pool[0] as Worker);
      await whenRunning(victim, () => ended);
      kills.push(victim.running());
      victim.child.kill("SIGKILL");
      pool.splice(pool.indexOf(victim), 1, startWorker(queueName, workDir));
    }
    // Redis restarted (SIGTERM, 1 s away, started again on its port and AOF).
    await until(26);
    await redis.restart({ downMs: 1000 });
    // A worker frozen mid-attempt (SIGSTOP: its event loop stops, so its 3 s locks lapse and
    // other workers take its jobs), thawed only after the run ends.
    await until(32);
    const frozen = pool.find((worker) => worker.running() > 0) ?? (pool[0] as Worker);
    await whenRunning(frozen, () => ended);
    frozen.child.kill("SIGSTOP");

    const summary = await run;
    // Counted now, not at the SIGSTOP: progress lines the worker wrote just before it stopped
    // may still have been in the pipe then (CI once counted 1 of its 2 attempts that way).
    const frozenJobs = frozen.running();
    // Every key has exactly one final outcome; no attempt number twice.
    expect(summary).toMatchObject({ keys: 48, done: 48, complete: true });
    const ledgerText = readFileSync(runLayout.ledger(out), "utf8");
    const records: RunRecord[] = ledgerText
      .split("\n")
      .filter(Boolean)
      .map((line) => RunRecordSchema.parse(JSON.parse(line)));
    const finals = new Map<string, number>();
    const attempts = new Set<string>();
    for (const record of records) {
      expect(attempts.has(`${record.key}#${record.attempt}`), `${record.key} attempt ${record.attempt} twice`).toBe(
        false,
      );
      attempts.add(`${record.key}#${record.attempt}`);
      if (isFinalOutcome(record.outcome)) finals.set(record.key, (finals.get(record.key) ?? 0) + 1);
    }
    expect(finals.size).toBe(48);
    expect([...finals.values()].every((n) => n === 1)).toBe(true);
    expect(kills.every((running) => running > 0)).toBe(true);
    const duplicatesPath = join(out, "duplicates.jsonl");
    const duplicatesBefore = existsSync(duplicatesPath) ? readLines(duplicatesPath).length : 0;
    expect(summary.queue.duplicates).toBe(duplicatesBefore);

    // Thawed, the frozen worker finishes the attempts another worker finished meanwhile and
    // reports them; the next session of the coordinator reads them: duplicates, not commits.
    frozen.child.kill("SIGCONT");
    while (frozen.running() > 0) await sleep(20);
    const resumed = await resumeDistributedRun(out, { queue: redis.url, queueName, pollMs: 200 });
    expect(resumed.queue).toMatchObject({ enqueued: 0, committed: 0, duplicates: frozenJobs });
    expect(readLines(duplicatesPath)).toHaveLength(duplicatesBefore + frozenJobs);
    console.log(
      `48 keys: ${records.length} ledger records; SIGKILLs with ${kills.join(" and ")} attempt(s) in flight; ${duplicatesBefore} duplicate(s) in the first session, ${frozenJobs} from the frozen worker on resume`,
    );
    expect(readFileSync(runLayout.ledger(out), "utf8")).toBe(ledgerText);
    expect(events.some((event) => event.type === "note" && /Redis is away/.test(event.message))).toBe(true);
    for (const worker of pool) worker.child.kill("SIGTERM");
  });

  it("a coordinator killed with SIGKILL after enqueuing: resuming finds its jobs still queued and adds none again (enqueuing twice is one job)", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "loclab-coordinator-")), "run");
    const specFile = join(out, "..", "spec.json");
    writeFileSync(
      specFile,
      JSON.stringify({
        benchmark: toy.benchmark,
        seeds: [1, 2],
        controls: [{ kind: "plain" }],
        endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 4 }],
        repos: toy.mirrors,
        out,
        retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2 },
      }),
    );
    const queueName = "coordinator-test";
    // The CLI's coordinator, with no worker yet: its jobs wait; it is killed once all 24 are in.
    const coordinator = spawn(
      process.execPath,
      [loclabBin, "run", specFile, "--queue", redis.url, "--queue-name", queueName],
      {
        stdio: "ignore",
      },
    );
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    while (((await queue.getJobCounts("waiting")).waiting ?? 0) < 24) await sleep(20);
    coordinator.kill("SIGKILL");
    await new Promise((resolve) => coordinator.once("exit", resolve));

    const notes: string[] = [];
    let workersStarted = false;
    const workDir = await mkdtemp(join(tmpdir(), "loclab-coordinator-workers-"));
    const pool: Worker[] = [];
    const summary = await resumeDistributedRun(out, {
      queue: redis.url,
      queueName,
      pollMs: 200,
      onEvent: (event) => {
        if (event.type !== "note") return;
        notes.push(event.message);
        // Workers only once the resumed coordinator has looked at its jobs.
        if (!workersStarted && /already queued/.test(event.message)) {
          workersStarted = true;
          pool.push(startWorker(queueName, workDir), startWorker(queueName, workDir));
        }
      },
    });
    for (const worker of pool) worker.child.kill("SIGTERM");
    await queue.close();
    expect(summary).toMatchObject({ keys: 24, done: 24, complete: true });
    expect(summary.queue).toMatchObject({ enqueued: 0, alreadyQueued: 24, committed: 24, duplicates: 0 });
    expect(readFileSync(runLayout.ledger(out), "utf8").split("\n").filter(Boolean)).toHaveLength(24);
  });
});

function readLines(path: string): unknown[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
