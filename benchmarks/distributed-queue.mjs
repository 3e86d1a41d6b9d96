// Benchmark (issue 38): a run spec on `loclab worker` processes over Debian's redis-server
// (started here: own port and folder, AOF on), against policy model servers in a child process
// at a fixed latency (each request answered after DELAY_MS; TURNS model calls per attempt).
//
//   1. overhead: one worker of concurrency 1 against the local runner at concurrency 1, on
//      fast servers (no delay): (distributed makespan − local makespan) ÷ attempts is what the
//      queue adds per job; with enqueue→start of jobs taken by an idle worker and finish→commit;
//   2. throughput: 1 → 2 → 4 workers of concurrency 2 on endpoints with room for all, each
//      against the ideal ⌈N ÷ slots⌉ · TURNS · DELAY_MS and the local runner with as many slots;
//   3. chaos: 3 workers, CHAOS_N attempts, 10 SIGKILLs of a worker at seeded random moments
//      (each replaced by a new worker) and one Redis restart: keys lost, keys with two finals,
//      duplicate executions counted, and each server's peak of requests in flight (measured by
//      the server) against its limit.
// Nothing is asserted; figures go to stdout and results/bench-distributed-queue.json.
//
//   npm run build && node benchmarks/distributed-queue.mjs
//   DELAY_MS=200 TURNS=4 N=64 CHAOS_N=200 node benchmarks/distributed-queue.mjs [--only overhead,throughput,chaos]
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildToyBenchmark } from "@loclab/fixtures";
import { startDistributedRun, startRedisServer } from "@loclab/queue";
import { parseRunSpec, startRun } from "@loclab/runner";
import { machine, median, round } from "./lib/measure.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-distributed-queue.json");
const bin = join(here, "..", "packages", "cli", "dist", "bin.js");
const DELAY_MS = Number(process.env.DELAY_MS ?? 200);
const TURNS = Number(process.env.TURNS ?? 4);
const N = Number(process.env.N ?? 64);
const CHAOS_N = Number(process.env.CHAOS_N ?? 200);
const onlyAt = process.argv.indexOf("--only");
const only = (onlyAt === -1 ? "overhead,throughput,chaos" : (process.argv[onlyAt + 1] ?? "")).split(",");
const work = mkdtempSync(join(tmpdir(), "loclab-bench-queue-"));
const toy = await buildToyBenchmark({ repositories: 4, instancesPerRepository: 25, dir: join(work, "toy") });
const redis = await startRedisServer({ dir: join(work, "redis") });
const results = { machine: machine(), delayMs: DELAY_MS, turns: TURNS, redis: redis.url };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Policy servers in a child process; `close()` gives each one's peak of requests in flight. */
async function servers(count, options) {
  const child = spawn(
    process.execPath,
    [join(here, "lib", "policy-servers.mjs"), JSON.stringify({ count, ...options })],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const lines = [];
  let buffer = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    buffer += chunk;
    while (buffer.includes("\n")) {
      lines.push(buffer.slice(0, buffer.indexOf("\n")));
      buffer = buffer.slice(buffer.indexOf("\n") + 1);
    }
  });
  while (lines.length === 0) await sleep(10);
  return {
    urls: JSON.parse(lines[0]),
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end();
      await exited;
      return JSON.parse(lines[1] ?? "{}").peakInFlight;
    },
  };
}

/** `loclab worker` processes; each counts the attempts it has started and not ended. */
function worker(queueName, { concurrency, lockSeconds = 120 }) {
  const child = spawn(
    process.execPath,
    [
      bin,
      "worker",
      "--queue",
      redis.url,
      "--queue-name",
      queueName,
      "--concurrency",
      String(concurrency),
      "--lock-seconds",
      String(lockSeconds),
      "--stalled-seconds",
      "1",
      "--work-dir",
      join(work, "workers"),
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let running = 0;
  let started = 0;
  let ready = false;
  child.stderr.setEncoding("utf8").on("data", (text) => {
    const starts = (text.match(/^loclab: start /gm) ?? []).length;
    started += starts;
    running += starts - (text.match(/^loclab: end /gm) ?? []).length;
    if (/taking jobs/.test(text)) ready = true;
  });
  return {
    child,
    running: () => running,
    started: () => started,
    ready: async () => {
      while (!ready) await sleep(20);
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function specFor(label, urls, limits, n) {
  return parseRunSpec({
    benchmark: toy.benchmark,
    seeds: [1, 2],
    instances: { slice: { end: n / 2 } },
    endpoints: urls.map((url, i) => ({ baseURL: url, model: "toy-policy", maxConcurrency: limits[i] })),
    repos: toy.mirrors,
    cacheDir: join(work, "cache"),
    out: join(work, `run-${label}`),
    retry: { backoffSeconds: 0.2, probeSeconds: 0.2, healthSeconds: 2 },
  });
}

/** The makespan of a run folder: first attempt's start to last attempt's end, from its ledger. */
function makespanMs(dir) {
  const records = readFileSync(join(dir, "attempts.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const starts = records.map((record) => Date.parse(record.startedAt));
  const ends = records.map((record) => Date.parse(record.endedAt));
  return Math.max(...ends) - Math.min(...starts);
}

async function distributed(label, { workers: count, concurrency, urls, limits, n }) {
  const queueName = `bench-${label}`;
  const pool = Array.from({ length: count }, () => worker(queueName, { concurrency }));
  await Promise.all(pool.map((w) => w.ready()));
  const spec = specFor(label, urls, limits, n);
  const t0 = performance.now();
  const summary = await startDistributedRun(spec, { queue: redis.url, queueName, pollMs: 100 });
  const wallMs = performance.now() - t0;
  await Promise.all(pool.map((w) => w.stop()));
  return { summary, wallMs, makespanMs: makespanMs(spec.out) };
}

async function local(label, { urls, limits, n }) {
  const spec = specFor(label, urls, limits, n);
  const t0 = performance.now();
  const summary = await startRun(spec);
  return { summary, wallMs: performance.now() - t0, makespanMs: makespanMs(spec.out) };
}

if (only.includes("overhead")) {
  // Fast servers: what is left is the harness and, distributed, the queue. Local and
  // distributed alternate, ROUNDS times each, so that drift in the machine's load hits both.
  const fast = await servers(1, { delayMs: 0, turns: TURNS });
  const n = 40;
  const rounds = Number(process.env.ROUNDS ?? 5);
  const perAttempt = { local: [], distributed: [] };
  const commits = [];
  for (let round = 0; round < rounds; round++) {
    const a = await local(`overhead-local-${round}`, { urls: fast.urls, limits: [1], n });
    const b = await distributed(`overhead-queue-${round}`, {
      workers: 1,
      concurrency: 1,
      urls: fast.urls,
      limits: [1],
      n,
    });
    perAttempt.local.push(a.makespanMs / n);
    perAttempt.distributed.push(b.makespanMs / n);
    commits.push(b.summary.queue.finishToCommitMs.median);
  }
  await fast.close();
  const [localMs, distributedMs] = [median(perAttempt.local), median(perAttempt.distributed)];
  results.overhead = {
    attempts: n,
    rounds,
    perAttemptLocalMs: perAttempt.local.map((ms) => round(ms, 1)),
    perAttemptDistributedMs: perAttempt.distributed.map((ms) => round(ms, 1)),
    perJobMs: round(distributedMs - localMs, 1),
    finishToCommitMedianMs: round(median(commits), 1),
  };
  console.log(
    `overhead: ${n} attempts one at a time, ${rounds} rounds: median ${round(localMs, 1)} ms per attempt locally, ${round(distributedMs, 1)} ms distributed: the queue adds ${results.overhead.perJobMs} ms per job (rounds: local ${results.overhead.perAttemptLocalMs.join(", ")}; distributed ${results.overhead.perAttemptDistributedMs.join(", ")}); finish→commit median ${results.overhead.finishToCommitMedianMs} ms`,
  );
}

if (only.includes("throughput")) {
  results.throughput = [];
  for (const count of [1, 2, 4]) {
    const slots = 2 * count;
    const remote = await servers(2, { delayMs: DELAY_MS, turns: TURNS });
    // Endpoints with room for every worker's slots: the workers are what is measured.
    const limits = [Math.ceil(slots / 2), Math.ceil(slots / 2)];
    const b = await distributed(`throughput-${count}`, {
      workers: count,
      concurrency: 2,
      urls: remote.urls,
      limits,
      n: N,
    });
    const peaks = await remote.close();
    const local2 = await servers(2, { delayMs: DELAY_MS, turns: TURNS });
    const a = await local(`throughput-local-${count}`, { urls: local2.urls, limits, n: N });
    await local2.close();
    const ideal = Math.ceil(N / slots) * TURNS * DELAY_MS;
    const row = {
      workers: count,
      concurrencyEach: 2,
      attempts: N,
      idealMs: ideal,
      distributedMakespanMs: round(b.makespanMs, 0),
      overIdeal: round(b.makespanMs / ideal, 3),
      attemptsPerSecond: round(N / (b.makespanMs / 1000), 2),
      localSameSlotsMakespanMs: round(a.makespanMs, 0),
      distributedOverLocal: round(b.makespanMs / a.makespanMs, 3),
      peakInFlight: peaks,
      limits,
      duplicates: b.summary.queue.duplicates,
    };
    results.throughput.push(row);
    console.log(
      `throughput: ${count} worker(s) × 2: ${row.attemptsPerSecond} attempts/s, makespan ${row.distributedMakespanMs} ms = ${row.overIdeal} × ideal ${ideal} ms; local with ${slots} slots ${row.localSameSlotsMakespanMs} ms (distributed/local ${row.distributedOverLocal}); peaks ${JSON.stringify(peaks)} of limits ${JSON.stringify(limits)}`,
    );
  }
}

if (only.includes("chaos")) {
  // 3 workers of concurrency 2 (6 slots wanted) on endpoints of 3 and 2 slots; locks of 5 s.
  const remote = await servers(2, { delayMs: Math.round(DELAY_MS / 2), turns: TURNS });
  const limits = [3, 2];
  const queueName = "bench-chaos";
  const options = { concurrency: 2, lockSeconds: 5 };
  const pool = Array.from({ length: 3 }, () => worker(queueName, options));
  const everyWorker = [...pool];
  await Promise.all(pool.map((w) => w.ready()));
  const spec = specFor("chaos", remote.urls, limits, CHAOS_N);
  let committed = 0;
  let ended = false;
  const t0 = performance.now();
  const run = startDistributedRun(spec, {
    queue: redis.url,
    queueName,
    pollMs: 200,
    onEvent: (event) => {
      if (event.type === "attempt-end") committed += 1;
    },
  }).finally(() => {
    ended = true;
  });
  // Seeded moments: ten kills spread over the run (by commits), a Redis restart in the middle.
  let state = 38;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const moments = Array.from({ length: 10 }, () => Math.floor(random() * CHAOS_N * 0.85))
    .sort((x, y) => x - y)
    .map((at) => ({ at, what: "kill" }));
  moments.push({ at: Math.floor(CHAOS_N / 2), what: "redis" });
  moments.sort((x, y) => x.at - y.at);
  const log = [];
  for (const moment of moments) {
    while (committed < moment.at && !ended) await sleep(10);
    if (ended) break;
    if (moment.what === "redis") {
      const t = performance.now();
      await redis.restart({ downMs: 1000 });
      log.push({ at: committed, what: "redis restart", downMs: round(performance.now() - t, 0) });
      continue;
    }
    const busy = pool.filter((w) => w.running() > 0);
    const victim = busy[Math.floor(random() * busy.length)] ?? pool[Math.floor(random() * pool.length)];
    log.push({ at: committed, what: "SIGKILL", attemptsInFlight: victim.running() });
    victim.child.kill("SIGKILL");
    const replacement = worker(queueName, options);
    everyWorker.push(replacement);
    pool.splice(pool.indexOf(victim), 1, replacement);
  }
  const summary = await run;
  const wallMs = performance.now() - t0;
  await Promise.all(pool.map((w) => w.stop()));
  const peaks = await remote.close();
  const records = readFileSync(join(spec.out, "attempts.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const finals = new Map();
  for (const record of records)
    if (!["infra_error", "failed"].includes(record.outcome)) finals.set(record.key, (finals.get(record.key) ?? 0) + 1);
  const duplicatesFile = join(spec.out, "duplicates.jsonl");
  results.chaos = {
    attempts: CHAOS_N,
    workers: 3,
    kills: log.filter((entry) => entry.what === "SIGKILL").length,
    events: log,
    keysDone: summary.done,
    lost: CHAOS_N - finals.size,
    keysWithTwoFinals: [...finals.values()].filter((n) => n > 1).length,
    ledgerRecords: records.length,
    // Executions begun on any worker, the killed ones included: those beyond one per key ran again.
    executionsStarted: everyWorker.reduce((sum, w) => sum + w.started(), 0),
    duplicateExecutions: existsSync(duplicatesFile)
      ? readFileSync(duplicatesFile, "utf8").split("\n").filter(Boolean).length
      : 0,
    failedJobs: summary.queue.failedJobs,
    requeued: summary.queue.requeued,
    wallSeconds: round(wallMs / 1000, 1),
    peakInFlight: peaks,
    limits,
    finishToCommitMs: summary.queue.finishToCommitMs,
  };
  console.log(
    `chaos: ${CHAOS_N} attempts, 3 workers, ${results.chaos.kills} SIGKILLs and a Redis restart in ${results.chaos.wallSeconds} s: ${results.chaos.lost} lost, ${results.chaos.keysWithTwoFinals} with two finals, ${results.chaos.executionsStarted} executions started (${results.chaos.executionsStarted - CHAOS_N} ran again after a kill), ${results.chaos.duplicateExecutions} late duplicate result(s) counted, ${results.chaos.ledgerRecords} ledger records; server peaks ${JSON.stringify(peaks)} of limits ${JSON.stringify(limits)}`,
  );
}

await redis.stop();
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${outFile}`);
await toy.dispose?.();
rmSync(work, { recursive: true, force: true });
