// Benchmark: @loclab/agent (issue 7) through its public API (built dist): the harness's own
// cost per turn of localizeInstance, excluding the model. On Debian's django tree
// (python3-django, committed to a git repository in a temporary folder and materialized with
// materializeWorkspace, as a run's workspaces are: the content pack is written then, and the
// import graph is built by the first connected_tree call and stored for every later process;
// `BENCH_OPEN=directory` opens the Debian folder in place instead), a scripted model server on 127.0.0.1 plays a
// 20-turn conversation of realistic calls (repo_tree, search_code, view_file, connected_tree,
// then submit_localization). The client is wrapped to timestamp each model call; a turn's
// harness cost is the time from the end of its model call to the start of the next one (or to
// the end of the run, for the last turn): running the tool calls, the loop checks, the
// trajectory append, and building the next request. The model's latency (HTTP, the server,
// the openai package's JSON work) is not in it.
//   Runs: ROUNDS runs over one workspace; the first is cold (file contents unread, the import
//   graph built by the first connected_tree call), later ones are warm. Reported: the median
//   per turn over the warm runs (target < 3 ms, issue 18), the cold run's median and largest turn.
//   Split: each tool call is also timed alone (runTool on the warm workspace, median of 5);
//   a turn's cost minus its tool's time is the loop's bookkeeping.
// Figures are printed and written to results/bench-agent-turn.json; nothing is asserted.
//
//   npm run build -w @loclab/agent && node benchmarks/agent-turn.mjs
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createModelClient, localizeInstance, startScriptedModelServer } from "@loclab/agent";
import { materializeWorkspace, openWorkspace, runTool } from "@loclab/tools";

const DJANGO = "/usr/lib/python3/dist-packages/django";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-agent-turn.json");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round = (value, digits = 3) => +value.toFixed(digits);

/** What a model localizing a QuerySet bug might do, turn by turn (paths relative to the django package; under `django/` in a materialized tree). */
const CALLS = [
  ["repo_tree", { depth: 1 }],
  ["search_code", { query: "def select_related" }],
  ["view_file", { path: "db/models/query.py", start: 1, end: 120 }],
  ["repo_tree", { path: "db/models", depth: 2, hideTests: true }],
  ["search_code", { query: "select_related", glob: "*.py" }],
  ["connected_tree", { path: "db/models/query.py" }],
  ["view_file", { path: "db/models/sql/query.py", start: 2000, end: 2100 }],
  ["search_code", { query: "def add_select_related" }],
  ["view_file", { path: "query.py", start: 1400, end: 1500 }],
  ["search_code", { query: "RelatedPopulator", ignoreCase: true }],
  ["connected_tree", { path: "db/models/sql/compiler.py", depth: 2, direction: "importedBy" }],
  ["view_file", { path: "db/models/sql/compiler.py", start: 900, end: 1050 }],
  ["search_code", { query: "get_related_selections" }],
  ["view_file", { path: "db/models/sql/compiler.py", start: 1100, end: 1250 }],
  ["search_code", { query: "FieldError(", glob: "db/models" }],
  ["view_file", { path: "core/exceptions.py" }],
  ["repo_tree", { path: "db/models/fields", depth: 1 }],
  ["search_code", { query: "def deferred_to_data" }],
  ["connected_tree", { path: "db/models/fields/related.py", direction: "imports" }],
];
const SUBMIT = {
  locations: [
    {
      path: "db/models/sql/compiler.py",
      startLine: 1100,
      endLine: 1180,
      role: "edit",
      symbol: "SQLCompiler.get_related_selections",
    },
    { path: "db/models/query.py", startLine: 1400, endLine: 1450, role: "read" },
  ],
  finding: {
    locationExplanation: "get_related_selections builds the joins select_related asks for.",
    rootCause: "A reverse one-to-one relation is skipped when it is nullable.",
    solutionIdea: "Follow nullable reverse relations too, with a LEFT OUTER join.",
    dependencies: "RelatedPopulator reads the selections back.",
    testingImpact: "select_related tests in tests/select_related_onetoone.",
  },
};
// In a materialized tree (django's repository layout) the package is the folder `django/`.
const inPlace = process.env.BENCH_OPEN === "directory";
const under = (args) => {
  if (inPlace) return args;
  const moved = { ...args };
  for (const key of ["path", "glob"])
    if (typeof moved[key] === "string" && moved[key].includes("/")) moved[key] = `django/${moved[key]}`;
  return moved;
};
for (const call of CALLS) call[1] = under(call[1]);
for (const location of SUBMIT.locations) location.path = under({ path: location.path }).path;
const script = [
  ...CALLS.map(([name, args]) => ({ toolCalls: [{ name, arguments: JSON.stringify(args) }] })),
  { toolCalls: [{ name: "submit_localization", arguments: JSON.stringify(SUBMIT) }] },
];

async function runOnce(workspace, runs, round) {
  const server = await startScriptedModelServer({ script });
  const inner = createModelClient({ baseURL: server.url, model: "scripted-model", timeoutMs: 30_000, maxRetries: 0 });
  const calls = [];
  const client = {
    model: inner.model,
    baseURL: inner.baseURL,
    async complete(request) {
      const start = performance.now();
      const completion = await inner.complete(request);
      calls.push({ start, end: performance.now(), latencyMs: completion.latencyMs });
      return completion;
    },
  };
  const started = performance.now();
  const result = await localizeInstance({
    instance: {
      instance_id: `django__bench-${round}`,
      problem_statement: "QuerySet.select_related() silently drops a nullable reverse one-to-one relation.",
    },
    workspace,
    client,
    maxTurns: script.length + 1,
    trajectoryPath: join(runs, `django__bench-${round}.traj.jsonl`),
  });
  const ended = performance.now();
  await server.close();
  if (result.outcome !== "finished" || result.turns !== script.length)
    throw new Error(
      `run ${round}: ${result.outcome} after ${result.turns} turns (${result.error ?? ""}); recoveries: ${JSON.stringify(result.recoveries)}`,
    );
  const perTurn = calls.map((call, i) => (i + 1 < calls.length ? calls[i + 1].start : ended) - call.end);
  return {
    perTurn,
    setupMs: calls[0].start - started,
    modelMs: calls.map((call) => call.end - call.start),
    totalMs: ended - started,
  };
}

/** Starts the V8 CPU profiler in this process; `stop(file)` writes the profile. */
async function startProfile() {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop(file) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** Debian's django package as `django/` of a git repository, materialized into a fresh workspace cache. */
async function materializedDjango(work) {
  const source = join(work, "src");
  cpSync(DJANGO, join(source, "django"), { recursive: true, filter: (path) => !path.includes("__pycache__") });
  const git = (cwd, ...args) =>
    execFileSync("git", args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    })
      .toString()
      .trim();
  git(source, "init", "-q", "-b", "main");
  git(source, "add", "-A");
  git(source, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "django from Debian");
  const commit = git(source, "rev-parse", "HEAD");
  git(work, "clone", "-q", "--bare", source, join(work, "mirrors", "django__django.git"));
  return materializeWorkspace({
    instance: { repo: "django/django", base_commit: commit },
    mirrors: join(work, "mirrors"),
    cacheDir: join(work, "cache"),
  });
}

const runs = mkdtempSync(join(tmpdir(), "loclab-bench-agent-"));
try {
  const workspace = inPlace ? await openWorkspace({ root: DJANGO }) : await materializedDjango(runs);
  const results = [];
  results.push(await runOnce(workspace, runs, 0));
  // BENCH_PROFILE=FILE: a CPU profile of the warm runs only (open it in Chrome's DevTools).
  const profiler = process.env.BENCH_PROFILE ? await startProfile() : undefined;
  for (let r = 1; r < ROUNDS; r++) results.push(await runOnce(workspace, runs, r));
  if (profiler) await profiler.stop(process.env.BENCH_PROFILE);
  const [cold, ...warm] = results;
  const warmTurns = warm.flatMap((run) => run.perTurn);
  const toolMs = [];
  for (const [name, args] of CALLS) {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      await runTool(workspace, { name, arguments: JSON.stringify(args) });
      times.push(performance.now() - start);
    }
    toolMs.push(median(times));
  }
  toolMs.push(0); // submit_localization: no tool of @loclab/tools; its path resolution is bookkeeping here
  const bookkeeping = warm.flatMap((run) => run.perTurn.map((ms, i) => ms - toolMs[i]));
  const names = script.map((turn) => turn.toolCalls[0].name);
  const byTool = Object.fromEntries(
    [...new Set(names)].map((name) => [
      name,
      round(median(warm.flatMap((run) => run.perTurn.filter((_, i) => names[i] === name)))),
    ]),
  );
  const report = {
    benchmark: "agent-turn",
    tree: DJANGO,
    opened: inPlace ? "openWorkspace on the folder" : "materializeWorkspace from a git mirror (content pack)",
    files: workspace.stats?.().files ?? null,
    turnsPerRun: script.length,
    rounds: ROUNDS,
    node: process.version,
    harnessMsPerTurn: {
      warmMedian: round(median(warmTurns)),
      warmP90: round([...warmTurns].sort((a, b) => a - b)[Math.floor(warmTurns.length * 0.9)]),
      warmMax: round(Math.max(...warmTurns)),
      coldMedian: round(median(cold.perTurn)),
      coldMax: round(Math.max(...cold.perTurn)),
      coldMaxTurn: `${cold.perTurn.indexOf(Math.max(...cold.perTurn))} (${names[cold.perTurn.indexOf(Math.max(...cold.perTurn))]})`,
      warmMedianByTool: byTool,
      toolAloneMedian: round(median(toolMs.slice(0, -1))),
      bookkeepingWarmMedian: round(median(bookkeeping)),
    },
    setupMsMedian: round(median(results.map((run) => run.setupMs))),
    modelMsPerCallMedian: round(median(results.flatMap((run) => run.modelMs))),
    runTotalMsMedianWarm: round(median(warm.map((run) => run.totalMs))),
    targetMs: 3,
    meetsTarget: median(warmTurns) < 3,
  };
  console.log(JSON.stringify(report, null, 2));
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
} finally {
  rmSync(runs, { recursive: true, force: true });
}
