// Benchmark (issue 13, scheduling): at a fixed model latency (policy model servers, in a child
// process, answering after d ms; default 500), N instances × T turns over E endpoints × C concurrency, the run's makespan (first
// dispatch to last record, from the ledger) against the ideal ⌈N/(E·C)⌉·T·d, and against the
// obvious alternative, one instance after another on one endpoint (`loclab localize` before
// the runner), in the same process. Then the harness overhead per turn on Debian's django
// tree (python3-django, committed to a git mirror in a temporary folder): (attempt wall time −
// time inside model calls) ÷ turns, per attempt, over attempts after the tree was materialized.
// Goals (issue 13): makespan within 5 % of ideal; overhead under 3 ms median. Nothing is asserted.
//
//   npm run build && node benchmarks/run-scheduling.mjs
//   DELAY_MS=200 TURNS=5 N=64 node benchmarks/run-scheduling.mjs
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark } from "@loclab/fixtures";
import { parseRunSpec, startRun } from "@loclab/runner";

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-run-scheduling.json");
const DELAY_MS = Number(process.env.DELAY_MS ?? 500);
const TURNS = Number(process.env.TURNS ?? 5);
const N = Number(process.env.N ?? 64);
const DJANGO = process.env.LOCLAB_DJANGO_SOURCE ?? "/usr/lib/python3/dist-packages/django";
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const work = mkdtempSync(join(tmpdir(), "loclab-sched-"));
const toy = await buildToyBenchmark({
  dir: join(work, "toy"),
  repositories: 8,
  instancesPerRepository: Math.ceil(N / 8),
});

/** E policy servers in a child process (the model must not share the runner's thread). */
async function serversElsewhere(E) {
  const child = spawn(
    process.execPath,
    [join(here, "lib", "policy-servers.mjs"), JSON.stringify({ count: E, delayMs: DELAY_MS, turns: TURNS })],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const urls = await new Promise((resolve) => child.stdout.once("data", (chunk) => resolve(JSON.parse(String(chunk)))));
  return {
    urls,
    close: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.stdin.end();
      }),
  };
}

async function makespan(E, C, label) {
  const remote = await serversElsewhere(E);
  const servers = remote.urls.map((url) => ({ url }));
  const spec = parseRunSpec({
    benchmark: toy.benchmark,
    instances: { slice: { end: N } },
    endpoints: servers.map((server) => ({ baseURL: server.url, model: "toy-policy", maxConcurrency: C })),
    repos: toy.mirrors,
    cacheDir: join(work, "cache"),
    out: join(work, `run-${label}`),
  });
  const summary = await startRun(spec);
  await remote.close();
  const records = readFileSync(join(spec.out, "attempts.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const start = Math.min(...records.map((record) => Date.parse(record.startedAt)));
  const end = Math.max(...records.map((record) => Date.parse(record.endedAt)));
  const turns = records.map((record) => record.turns);
  const ideal = Math.ceil(N / (E * C)) * TURNS * DELAY_MS;
  // Where the time went: the model calls as the client saw them (d plus the fake server's own
  // work and HTTP), the harness (the rest of each attempt), and slots left idle by the scheduler.
  const modelMsPerTurn =
    records.reduce((sum, record) => sum + record.modelMs, 0) / records.reduce((sum, record) => sum + record.turns, 0);
  const harnessMsPerTurn =
    records.reduce((sum, record) => sum + record.wallMs - record.modelMs, 0) /
    records.reduce((sum, record) => sum + record.turns, 0);
  const busy = records.reduce((sum, record) => sum + record.wallMs, 0);
  const idealAtMeasuredLatency = Math.ceil(N / (E * C)) * TURNS * modelMsPerTurn;
  return {
    E,
    C,
    complete: summary.complete,
    turnsPerInstance: [...new Set(turns)],
    makespanMs: end - start,
    idealMs: ideal,
    overIdeal: +((end - start) / ideal - 1).toFixed(4),
    measuredModelMsPerTurn: +modelMsPerTurn.toFixed(2),
    harnessMsPerTurn: +harnessMsPerTurn.toFixed(2),
    overIdealAtMeasuredLatency: +((end - start) / idealAtMeasuredLatency - 1).toFixed(4),
    slotUtilization: +(busy / (Math.min(N, E * C) * (end - start))).toFixed(4),
  };
}

// Warm the workspace cache first so that materializing trees is not in any makespan.
await makespan(1, N, "warmup");
const pool = [];
const CONFIGS = (process.env.CONFIGS ?? "4x8,4x4,2x8,1x8").split(",").map((config) => config.split("x").map(Number));
for (const [E, C] of CONFIGS) pool.push(await makespan(E, C, `${E}x${C}`));
const sequential = process.env.SKIP_SEQUENTIAL ? pool[0] : await makespan(1, 1, "sequential");
const ratio = sequential.makespanMs / pool[0].makespanMs;

// Harness overhead per turn on django's tree.
let overhead = null;
if (existsSync(join(DJANGO, "db", "models", "query.py"))) {
  const source = join(work, "django-src");
  mkdirSync(source, { recursive: true });
  cpSync(DJANGO, join(source, "django"), { recursive: true, filter: (path) => !path.includes("__pycache__") });
  const git = (cwd, ...args) =>
    execFileSync("git", ["-c", "user.email=b@loclab", "-c", "user.name=bench", "-c", "commit.gpgsign=false", ...args], {
      cwd,
      encoding: "utf8",
    });
  git(source, "init", "-q");
  git(source, "add", ".");
  git(source, "commit", "-qm", "django from Debian");
  const commit = git(source, "rev-parse", "HEAD").trim();
  const mirrors = join(work, "django-mirrors");
  mkdirSync(mirrors);
  git(work, "clone", "-q", "--bare", source, join(mirrors, "django__django.git"));
  const names = [
    "select_related",
    "prefetch_related",
    "get_or_create",
    "bulk_create",
    "aggregate",
    "annotate",
    "values_list",
    "in_bulk",
    "update_or_create",
    "only",
    "defer",
    "distinct",
  ];
  const rows = names.map((fn, i) => ({
    instance_id: `django__django-${90000 + i}`,
    repo: "django/django",
    base_commit: commit,
    problem_statement: `\`${fn}()\` misbehaves on a QuerySet. It comes from the module django.db.models.query.`,
    patch: "",
  }));
  writeFileSync(join(work, "django.jsonl"), rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
  const server = await startPolicyModelServer({ turns: 10 });
  const spec = parseRunSpec({
    benchmark: join(work, "django.jsonl"),
    endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 1 }],
    repos: mirrors,
    out: join(work, "run-django"),
  });
  await startRun(spec);
  await server.close();
  const records = readFileSync(join(spec.out, "attempts.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const warm = records.slice(1);
  const perTurn = warm.map((record) => (record.wallMs - record.modelMs) / record.turns);
  overhead = {
    files: Number(git(source, "ls-files").split("\n").length - 1),
    attempts: records.length,
    turnsPerAttempt: warm.map((record) => record.turns),
    medianMsPerTurn: +median(perTurn).toFixed(3),
    maxMsPerTurn: +Math.max(...perTurn).toFixed(3),
    firstAttemptMs: +records[0].wallMs.toFixed(1),
    note: "first attempt (materializing the tree) left out",
  };
}
const result = {
  delayMs: DELAY_MS,
  turns: TURNS,
  instances: N,
  pool,
  sequential,
  poolVsSequential: +ratio.toFixed(2),
  harnessOverheadDjango: overhead,
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify({ benchmark: "run-scheduling", node: process.version, ...result }, null, 2)}\n`,
);
await toy.dispose();
if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
else console.error(`kept ${work}`);
