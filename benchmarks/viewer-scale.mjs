// Benchmark (issue 39): the viewer (@loclab/viewer) on a run of 10,000 trajectories, about 1 GB.
//
// 1. The run. A small real localization run: the toy benchmark (8 repositories), seeds 1 and 2 ×
//    plain, masked and shuffled, and the policy model server over HTTP. One run is padded to 19
//    turns and submits. A second one, over two instances per repository, is padded to 25 turns
//    and is stopped by the 20-turn limit (step_limit, no prediction). The run is then scaled up
//    to N trajectories by cloning its records and trajectory files under new instance ids. Rows
//    are added to a copy of the benchmark's JSONL (same repository, commit, issue and gold patch),
//    the manifest points at that copy, every key is the one the run's own plan gives, and the
//    cells' predictions are rebuilt from the ledger. Turns vary from 2 to 20: steps are dropped
//    or added between the searches and the final answer. The added steps are view_file calls.
//    Their observations are windows of real Python source (Debian's django), rendered as the tool
//    renders them and sized so that the folder comes to about --target-mb. The run is made once
//    in --work and reused while the parameters stay the same.
// 2. `loclab report RUN --out SITE`: wall time and peak RSS (/usr/bin/time -v; without it,
//    runSite + writeSite in a child and its own maximum RSS). It is run again with the files
//    kept. Reported: the site's size and its summary's size. The summary is checked: no problems,
//    one row per trajectory, acc1 values.
// 3. In Debian's chromium (playwright-core with the tests' launch arguments, 1280×900), the
//    instance table is opened --repeat times, each in a fresh context, three ways: from disk
//    (file://), over HTTP (a static server of the site on 127.0.0.1), and from `loclab view`.
//    Measured from navigation start: first (contentful) paint, and ready (body[data-ready]:
//    summary loaded, table drawn) and its next frame. Then filter latency (window.loclab.filterNow:
//    filter + redraw, and to the next painted frame), sorting by a header click, opening a
//    trajectory, the rows in the DOM and a scroll to row 5000, the JS heap (CDP
//    Performance.getMetrics) and the PSS/RSS of chromium's processes (/proc). A CPU profile of
//    the load is taken when ready takes over 1 s (or with --profile). The search view is then
//    run once over every trajectory (file://), since it is the one view that reads them all.
// 4. The alternative: what Inspect's viewer does with a .json log, which is to read the whole
//    log and only then show the list. One data script holds every trajectory's view (the
//    site's own data/t/*.js payloads), and a page runs it, derives the same table's rows from
//    it and draws them with the same app.js. Time to ready and memory are measured at 10, 25,
//    50 and 100 % of the trajectories. A size stops at a crash, at an error, or after 120 s.
// Goals (issue 39): first paint under 1 s, filtering under 100 ms. Nothing is asserted.
// Figures are printed and written to results/bench-viewer-scale.json.
//
//   npm run build && node benchmarks/viewer-scale.mjs
//   node benchmarks/viewer-scale.mjs --trajectories 500 --target-mb 50      (a quick check)
// Options: --work DIR (default $TMPDIR/loclab-bench-viewer-scale-N-M, about 1.5 GB, removed at
// the end unless --keep keeps it for the next run), --repeat 5, --load-all-repeat 3, --load-all-sizes 1000,2500,…,
// --skip-load-all, --skip-view, --skip-search, --profile (always profile the load).
// Environment: LOCLAB_ROOT (the repository; default the folder above this file) and
// BENCH_RESULTS_DIR (default <root>/results).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cellLabel } from "@loclab/schemas";
import { seededRandom } from "@loclab/statistics";
import { chromiumExecutable, HEADLESS_CHROMIUM_ARGS } from "@loclab/viewer";
import { DJANGO, machine, median, round } from "./lib/measure.mjs";

const SELF = fileURLToPath(import.meta.url);
const ROOT = resolve(process.env.LOCLAB_ROOT ?? fileURLToPath(new URL("..", import.meta.url)));
const CLI = join(ROOT, "packages", "cli", "dist", "bin.js");
const RESULTS = resolve(process.env.BENCH_RESULTS_DIR ?? join(ROOT, "results"));
const OUT_FILE = join(RESULTS, "bench-viewer-scale.json");

// ------------------------------------------------------------------ child: report without /usr/bin/time
// runSite + writeSite as `loclab report` calls them, in a process of its own: its maximum RSS.
if (process.argv[2] === "--report-child") {
  const { runSite, writeSite } = await import("@loclab/viewer");
  const started = performance.now();
  const source = await runSite(process.argv[3]);
  const result = await writeSite(source, process.argv[4]);
  process.stdout.write(
    JSON.stringify({
      seconds: (performance.now() - started) / 1000,
      written: result.written,
      kept: result.kept,
      failed: result.failed,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
  process.exit(0);
}

// ------------------------------------------------------------------ options
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 && at + 1 < argv.length ? argv[at + 1] : fallback;
};
const flag = (name) => argv.includes(name);
function positive(name, text, integer = true) {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
    throw new Error(`${name} ${text}: not a positive ${integer ? "integer" : "number"}`);
  return value;
}
const N = positive("--trajectories", option("--trajectories", "10000"));
const TARGET_MB = positive("--target-mb", option("--target-mb", "1000"), false);
const REPEAT = positive("--repeat", option("--repeat", "5"));
const LOAD_ALL_REPEAT = positive("--load-all-repeat", option("--load-all-repeat", "3"));
const LOAD_ALL_SIZES = [
  ...new Set(
    (option("--load-all-sizes") ?? [0.1, 0.25, 0.5, 1].map((share) => Math.max(1, Math.round(share * N))).join(","))
      .split(",")
      .map((text) => positive("--load-all-sizes", text))
      .filter((size) => size <= N),
  ),
].sort((a, b) => a - b);
const WORK = resolve(option("--work", join(tmpdir(), `loclab-bench-viewer-scale-${N}-${TARGET_MB}`)));
const LOAD_ALL_TIMEOUT_MS = 120_000;
const FILTERS = [
  'control == "masked" and acc1 == 0 and turns < 5',
  'instance ~ "abacus"',
  "turns > 10 or tokens < 3000",
  'not (exit == "submitted")',
  "",
];
const GOALS = { firstPaintMs: 1000, filterMs: 100 };
/** The tests' launch (@loclab/viewer's headless-chromium.ts): Debian's chromium, headless, no sandbox, no name but 127.0.0.1 resolves. */
const CHROMIUM = chromiumExecutable();
const LAUNCH_ARGS = [...HEADLESS_CHROMIUM_ARGS];
const log = (line) => console.error(`viewer-scale: ${line}`);
const mb = (bytes) => round(bytes / 1e6, 1);
const sleep = (ms) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

// ------------------------------------------------------------------ 1. the synthetic run
/** Bump when the synthetic run changes, so that a kept --work folder is made again. */
const GENERATOR = 1;
const CONTROLS = [{ kind: "plain" }, { kind: "masked" }, { kind: "shuffled", seed: 7 }];
const SEEDS = [1, 2];
const CELLS = SEEDS.length * CONTROLS.length;
const BASE_PER_REPO = Math.min(8, Math.max(2, Math.ceil(N / CELLS / 8 / 3)));
/** Share of the cloned attempts taken from the run stopped by the turn limit. */
const LIMIT_SHARE = 0.08;
const MARK = join(WORK, ".loclab-bench-viewer-scale");

/** Empties --work, only when it is one of ours (or empty): never a folder of someone else's. */
function resetWork() {
  if (existsSync(WORK) && readdirSync(WORK).length > 0 && !existsSync(MARK))
    throw new Error(`--work ${WORK}: not empty and not made by this benchmark; give an empty or new folder`);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  writeFileSync(MARK, "made by benchmarks/viewer-scale.mjs\n");
}

/** Windows of real Python source for the view_file observations (django, else generated code-like lines). */
function sourcePool() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "__pycache__") walk(path);
      } else if (entry.name.endsWith(".py")) files.push(path);
    }
  };
  if (existsSync(DJANGO)) walk(DJANGO);
  const pool = files
    .map((file) => readFileSync(file, "utf8").split("\n"))
    .filter((lines) => lines.length >= 400)
    .slice(0, 64);
  if (pool.length > 0) return { pool, source: DJANGO };
  const random = seededRandom(3);
  const words = ["def", "return", "self", "value", "None", "if", "for", "in", "query", "field", "=", "(", ")", ":"];
  const lines = Array.from(
    { length: 3000 },
    () =>
      `${"    ".repeat(random.nextBelow(3))}${Array.from({ length: 3 + random.nextBelow(10) }, () => words[random.nextBelow(words.length)]).join(" ")}`,
  );
  return { pool: [lines], source: "generated (no django at $LOCLAB_DJANGO_SOURCE)" };
}

/** view_file's answer for a window of a pool file, as the tool renders it (view-file.ts). */
function viewObservation(path, chars, random, pool) {
  const lines = pool[random.nextBelow(pool.length)];
  const start = 1 + random.nextBelow(Math.max(1, lines.length - 150));
  const shown = [];
  let size = 0;
  for (let n = start - 1; n < lines.length && shown.length < 150 && size < chars; n += 1) {
    const text = lines[n].slice(0, 400);
    if (size + text.length > 10_000) break;
    shown.push(text);
    size += text.length + 1;
  }
  const end = start + shown.length - 1;
  const width = String(end).length;
  const body = shown.map((text, i) => `${String(start + i).padStart(width)}\t${text}`).join("\n");
  const note =
    end < lines.length ? `[lines ${end + 1}-${lines.length} not shown; view them with start=${end + 1}]\n` : "";
  return { args: { path, start }, text: `${path}: lines ${start}-${end} of ${lines.length} lines\n${body}\n${note}` };
}

const HIT = /^([^\s:][^:\n]*):(\d+):/gm;
const escapedBytes = (text) => Buffer.byteLength(JSON.stringify(text)) - 2;

/**
 * One cloned trajectory: the base's searches (its first steps), `turns - searches - 1` view_file
 * steps, and the base's last step (the answer, or the turn limit's forced final turn). Each
 * step's request is rebuilt from the step before it (the assistant's calls and their
 * observations, then the harness's own messages, as the localizer writes them). A step keeps
 * its messagesDigest only when its request is the base's.
 */
function cloneTrajectory(base, { instanceId, key, turns, startedAt, wallMs, random, pool, obsChars }) {
  const [header, ...steps] = base.lines;
  let searches = 0;
  while (searches < steps.length - 1 && steps[searches].toolCalls[0]?.name === "search_code") searches += 1;
  const last = steps[steps.length - 1];
  const viewPaths = [
    ...new Set(
      steps
        .slice(0, searches)
        .flatMap((step) =>
          step.toolCalls.flatMap((call) => [...(call.observation ?? "").matchAll(HIT)].map((hit) => hit[1])),
        ),
    ),
  ];
  if (viewPaths.length === 0) viewPaths.push("README.md");
  const tools = steps.find((step, i) => i > 0 && step.request?.tools)?.request.tools;
  const begin = Date.parse(startedAt);
  const stepMs = wallMs / turns;
  const out = [];
  let keep = 0;
  let growth = 0;
  let overhead = 0;
  let observations = 0;
  const totals = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  for (let i = 0; i < turns; i += 1) {
    const from = i < searches ? steps[i] : i === turns - 1 ? last : null;
    const t0 = new Date(begin + i * stepMs).toISOString();
    const t1 = new Date(begin + (i + 1) * stepMs - 1).toISOString();
    let toolCalls;
    let completionTokens;
    if (from) {
      toolCalls = from.toolCalls.map((call) => ({ ...call, ...(call.observedAt ? { observedAt: t1 } : {}) }));
      completionTokens = from.usage?.completionTokens ?? 5;
    } else {
      const view = viewObservation(viewPaths[random.nextBelow(viewPaths.length)], obsChars(), random, pool);
      toolCalls = [{ name: "view_file", arguments: view.args, observation: view.text, ok: true, observedAt: t1 }];
      completionTokens = 20 + random.nextBelow(40);
      observations += escapedBytes(view.text);
    }
    let request;
    if (i === 0) request = steps[0].request;
    else {
      const previous = out[i - 1];
      const ids = previous.toolCalls.map((_, n) => `call_${i - 1}_${n}`);
      request = {
        keep,
        add: [
          {
            role: "assistant",
            content: previous.output ?? null,
            toolCalls: previous.toolCalls.map((call, n) => ({
              id: ids[n],
              name: call.name,
              arguments: JSON.stringify(call.arguments),
            })),
          },
          ...previous.toolCalls.map((call, n) => ({
            role: "tool",
            toolCallId: ids[n],
            content: call.observation ?? "",
          })),
          ...(from?.request?.add ?? []).filter((message) => message.role === "user"),
        ],
        tools: from?.request?.tools ?? tools,
      };
    }
    keep += request.add.length;
    for (const message of request.add)
      growth += 4 + Math.ceil(((message.content ?? "").length + JSON.stringify(message.toolCalls ?? "").length) / 3.6);
    // The tools' schemas and the like: what step 0's prompt holds beyond its messages.
    if (i === 0) overhead = Math.max(0, (steps[0].usage?.promptTokens ?? growth) - growth);
    const promptTokens = overhead + growth;
    const sameRequest = steps[i] && JSON.stringify(steps[i].request) === JSON.stringify(request);
    out.push({
      step: i,
      ...(from?.output !== undefined ? { output: from.output } : {}),
      finishReason: from?.finishReason ?? "tool_calls",
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      toolCalls,
      startedAt: t0,
      endedAt: t1,
      ...(from?.error ? { error: from.error } : {}),
      ...(sameRequest && steps[i].messagesDigest ? { messagesDigest: steps[i].messagesDigest } : {}),
      request,
    });
    totals.promptTokens += promptTokens;
    totals.completionTokens += completionTokens;
    totals.totalTokens += promptTokens + completionTokens;
  }
  const endedAt = new Date(begin + wallMs).toISOString();
  const usage = { ...totals, apiCalls: turns };
  const head = {
    ...header,
    instanceId,
    usage,
    startedAt,
    endedAt,
    ...(header.provenance
      ? {
          provenance: {
            ...header.provenance,
            createdAt: startedAt,
            inputs: { ...header.provenance.inputs, key },
          },
        }
      : {}),
  };
  const text = `${[head, ...out].map((line) => JSON.stringify(line)).join("\n")}\n`;
  return { text, usage, endedAt, observations, header: head, steps: out };
}

/** Files and bytes under a folder (apparent sizes). */
function folderSize(dir) {
  let bytes = 0;
  let files = 0;
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        bytes += statSync(path).size;
        files += 1;
      }
    }
  };
  walk(dir);
  return { bytes, files };
}

async function makeRun() {
  const params = JSON.stringify({
    generator: GENERATOR,
    trajectories: N,
    targetMb: TARGET_MB,
    basePerRepo: BASE_PER_REPO,
  });
  const paramsFile = join(WORK, "run.params.json");
  const factsFile = join(WORK, "run.facts.json");
  const runDir = join(WORK, "run");
  if (existsSync(paramsFile) && readFileSync(paramsFile, "utf8") === params && existsSync(factsFile)) {
    log(`reusing the run in ${runDir}`);
    return { ...JSON.parse(readFileSync(factsFile, "utf8")), reused: true };
  }
  resetWork();
  const started = performance.now();
  const { startPolicyModelServer } = await import("@loclab/agent");
  const { buildToyBenchmark } = await import("@loclab/fixtures");
  const { canonicalJson, parseRunSpec, planRun, startRun } = await import("@loclab/runner");
  const {
    isFinalOutcome,
    rebuildCellPredictions,
    RunRecordSchema,
    runLayout,
    TrajectoryHeaderSchema,
    TrajectoryStepSchema,
  } = await import("@loclab/schemas");

  // The small real runs.
  const toy = await buildToyBenchmark({
    dir: join(WORK, "toy"),
    repositories: 8,
    instancesPerRepository: BASE_PER_REPO,
  });
  const limitIds = toy.rows.filter((row) => /-[12]$/.test(row.instance_id)).map((row) => row.instance_id);
  const bases = {};
  for (const [name, turns, instances] of [
    ["submitted", 19, undefined],
    ["limit", 25, limitIds],
  ]) {
    const server = await startPolicyModelServer({ slip: 0.5, turns });
    const out = join(WORK, `base-${name}`);
    const t0 = performance.now();
    try {
      await startRun(
        parseRunSpec({
          name: "viewer-scale",
          benchmark: toy.benchmark,
          ...(instances ? { instances } : {}),
          seeds: SEEDS,
          controls: CONTROLS,
          endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 4 }],
          repos: toy.mirrors,
          out,
          cacheDir: join(WORK, "cache"),
          retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2 },
        }),
      );
    } finally {
      await server.close();
    }
    const records = readFileSync(join(out, "attempts.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((record) => isFinalOutcome(record.outcome) && record.trajectory);
    const byKey = new Map();
    for (const record of records) {
      const lines = readFileSync(join(out, record.trajectory), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      byKey.set(`${record.instanceId}\u0000${cellLabel(record)}`, { record, lines });
    }
    bases[name] = { dir: out, byKey };
    log(
      `base run ${name}: ${records.length} final attempts (${turns} turns asked) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }

  // The benchmark's copy with the clones' rows, and the run's plan over it.
  const baseRows = readFileSync(toy.benchmark, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const instanceCount = Math.ceil(N / CELLS);
  const cloneOf = new Map();
  const rows = Array.from({ length: instanceCount }, (_, j) => {
    const base = baseRows[j % baseRows.length];
    const row = { ...base, instance_id: `${base.instance_id.replace(/-\d+$/, "")}-${10_001 + j}` };
    cloneOf.set(row.instance_id, base.instance_id);
    return row;
  });
  const benchmark = join(WORK, "benchmark", "toy.jsonl");
  mkdirSync(dirname(benchmark), { recursive: true });
  writeFileSync(benchmark, `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`);
  const manifest = JSON.parse(readFileSync(join(bases.submitted.dir, "manifest.json"), "utf8"));
  const spec = { ...manifest.spec, benchmark, out: runDir };
  const plan = await planRun(parseRunSpec(spec));
  const attempts = plan.attempts.slice(0, N);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(
    join(runDir, "manifest.json"),
    `${JSON.stringify(
      {
        ...manifest,
        spec,
        specDigest: createHash("sha256").update(canonicalJson(spec)).digest("hex"),
        benchmark: plan.benchmarkName,
        instances: plan.instances.map((instance) => instance.instance_id),
        cells: plan.cells.map((cell) => cellLabel(cell)),
        attemptKeys: plan.attempts.length,
      },
      null,
      2,
    )}\n`,
  );
  copyFileSync(join(bases.submitted.dir, "sessions.jsonl"), join(runDir, "sessions.jsonl"));

  // Which base each attempt clones, and its turns, first (the padding is spread over all of them).
  const random = seededRandom(39);
  const { pool, source } = sourcePool();
  const chosen = attempts.map((attempt) => {
    const baseId = cloneOf.get(attempt.instance.instance_id);
    const at = `${baseId}\u0000${attempt.cellLabel}`;
    const limit = bases.limit.byKey.get(at);
    const submitted = bases.submitted.byKey.get(at);
    const base = limit && (random.nextFloat() < LIMIT_SHARE || !submitted) ? limit : submitted;
    if (!base) throw new Error(`no final attempt of ${baseId} in ${attempt.cellLabel} in the base runs`);
    const steps = base.lines.length - 1;
    let searches = 0;
    while (searches < steps - 1 && base.lines[1 + searches].toolCalls[0]?.name === "search_code") searches += 1;
    const turns = base.record.exit === "step_limit" ? steps : searches + 1 + random.nextBelow(steps - searches);
    return { attempt, base, turns, padding: turns - searches - 1 };
  });
  const target = TARGET_MB * 1e6;
  let paddingLeft = chosen.reduce((sum, item) => sum + item.padding, 0);
  let bytes = statSync(join(runDir, "manifest.json")).size + statSync(join(runDir, "sessions.jsonl")).size;
  let observations = 0;
  const ledger = [];
  const turnsSeen = [];
  const exits = {};
  const begin = Date.parse(manifest.startedAt);
  for (const [n, { attempt, base, turns, padding }] of chosen.entries()) {
    const overhead = n >= 50 ? (bytes - 2 * observations) / n : 9_000;
    const perObservation = Math.max(
      200,
      (target - bytes - (chosen.length - n) * overhead) / Math.max(1, 2 * paddingLeft),
    );
    const obsChars = () => Math.min(11_000, (perObservation * (0.5 + random.nextFloat())) / 1.06);
    const instanceId = attempt.instance.instance_id;
    const wallMs = turns * (1500 + random.nextBelow(3000));
    const startedAt = new Date(begin + n * 2000).toISOString();
    const cloned = cloneTrajectory(base, {
      instanceId,
      key: attempt.key,
      turns,
      startedAt,
      wallMs,
      random,
      pool,
      obsChars,
    });
    const path = runLayout.trajectory(runDir, attempt.cellLabel, instanceId, 1);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, cloned.text);
    const record = {
      ...base.record,
      key: attempt.key,
      instanceId,
      attempt: 1,
      turns,
      usage: cloned.usage,
      wallMs,
      modelMs: Math.round(wallMs * 0.55),
      trajectory: relative(runDir, path).split(sep).join("/"),
      startedAt,
      endedAt: cloned.endedAt,
    };
    if (base.record.prediction) record.prediction = { ...base.record.prediction, instanceId };
    if (n < 20) {
      RunRecordSchema.parse(record);
      TrajectoryHeaderSchema.parse(cloned.header);
      for (const step of cloned.steps) TrajectoryStepSchema.parse(step);
    }
    const line = JSON.stringify(record);
    ledger.push(record);
    bytes += Buffer.byteLength(cloned.text) + line.length + 1 + (record.prediction ? line.length / 2 : 0);
    observations += cloned.observations;
    paddingLeft -= padding;
    turnsSeen.push(turns);
    exits[record.exit] = (exits[record.exit] ?? 0) + 1;
    if ((n + 1) % 1000 === 0 || n + 1 === chosen.length)
      log(`cloned ${n + 1}/${chosen.length} trajectories, ${mb(bytes)} MB`);
  }
  writeFileSync(join(runDir, "attempts.jsonl"), ledger.map((record) => `${JSON.stringify(record)}\n`).join(""));
  await rebuildCellPredictions(
    runDir,
    RunRecordSchema.array().parse(ledger),
    plan.cells.map((cell) => cellLabel(cell)),
  );
  const size = folderSize(runDir);
  const facts = {
    dir: runDir,
    trajectories: ledger.length,
    instances: plan.instances.length,
    cells: plan.cells.length,
    attemptKeys: plan.attempts.length,
    openKeys: plan.attempts.length - ledger.length,
    bytes: size.bytes,
    files: size.files,
    turns: { min: Math.min(...turnsSeen), median: median(turnsSeen), max: Math.max(...turnsSeen) },
    exits,
    observationSource: source,
    baseRuns: {
      submitted: { attempts: bases.submitted.byKey.size, turnsAsked: 19 },
      limit: { attempts: bases.limit.byKey.size, turnsAsked: 25, share: LIMIT_SHARE },
    },
    generateSeconds: round((performance.now() - started) / 1000, 1),
  };
  writeFileSync(factsFile, JSON.stringify(facts, null, 2));
  writeFileSync(paramsFile, params);
  return { ...facts, reused: false };
}

// ------------------------------------------------------------------ 2. loclab report
function timedReport(run, site) {
  const started = performance.now();
  if (existsSync("/usr/bin/time")) {
    const result = spawnSync("/usr/bin/time", ["-v", process.execPath, CLI, "report", run, "--out", site], {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    const seconds = (performance.now() - started) / 1000;
    if (result.status !== 0) throw new Error(`loclab report failed (${result.status}): ${result.stderr.slice(-2000)}`);
    const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr);
    const counts = /(\d+) trajectory files written, (\d+) kept \(newer than their source\), (\d+) unreadable/.exec(
      result.stdout,
    );
    return {
      seconds: round(seconds, 2),
      peakRssMb: peak ? round(Number(peak[1]) / 1024, 0) : null,
      rssFrom: "/usr/bin/time -v (maximum resident set size)",
      written: counts ? Number(counts[1]) : null,
      kept: counts ? Number(counts[2]) : null,
      unreadable: counts ? Number(counts[3]) : null,
      stdout: result.stdout.trim().split("\n").slice(-1)[0],
    };
  }
  const result = spawnSync(process.execPath, [SELF, "--report-child", run, site], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  if (result.status !== 0) throw new Error(`report child failed: ${result.stderr.slice(-2000)}`);
  const answer = JSON.parse(result.stdout);
  return {
    seconds: round((performance.now() - started) / 1000, 2),
    peakRssMb: round(answer.peakRssMb, 0),
    rssFrom: "runSite + writeSite in a child: process.resourceUsage().maxRSS (no /usr/bin/time)",
    written: answer.written,
    kept: answer.kept,
    unreadable: answer.failed,
  };
}

function readSummary(site) {
  const text = readFileSync(join(site, "data", "summary.js"), "utf8");
  const prefix = 'loclabData("summary",';
  if (!text.startsWith(prefix) || !text.endsWith(");\n")) throw new Error("data/summary.js: not a loclabData script");
  return JSON.parse(text.slice(prefix.length, -3));
}

function siteFacts(site) {
  const size = folderSize(site);
  const dir = join(site, "data", "t");
  const sizes = readdirSync(dir)
    .filter((name) => name.endsWith(".js"))
    .map((name) => ({ id: Number(name.slice(0, -3)), bytes: statSync(join(dir, name)).size }))
    .sort((a, b) => a.bytes - b.bytes);
  const summary = readSummary(site);
  const acc1 = summary.rows.acc1.filter((value) => typeof value === "number");
  return {
    bytes: size.bytes,
    files: size.files,
    summaryBytes: statSync(join(site, "data", "summary.js")).size,
    trajectoryFiles: sizes.length,
    trajectoryBytes: sizes.reduce((sum, item) => sum + item.bytes, 0),
    largestTrajectory: sizes.at(-1),
    medianTrajectory: sizes[Math.floor(sizes.length / 2)],
    check: {
      problems: summary.problems,
      rows: summary.rows.t.length,
      rowsWithTrajectory: summary.rows.t.filter((t) => t >= 0).length,
      acc1Values: acc1.length,
      acc1Mean: acc1.length ? round(acc1.reduce((a, b) => a + b, 0) / acc1.length, 3) : null,
      cells: summary.cells.length,
      pairs: summary.pairs.length,
      comparisons: summary.comparisons.length,
    },
    turnsOfLargest: summary.rows.turns[summary.rows.t.indexOf(sizes.at(-1).id)],
    turnsOfMedian: summary.rows.turns[summary.rows.t.indexOf(sizes[Math.floor(sizes.length / 2)].id)],
    minTurns: Math.min(...summary.rows.turns),
    maxTurns: Math.max(...summary.rows.turns),
  };
}

// ------------------------------------------------------------------ 3. the browser
// Process-tree memory (Linux /proc): RSS counts shared pages in every process; PSS shares them out.
function descendants(rootPid) {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(Number(name));
    } catch {}
  }
  const found = [];
  const stack = [rootPid];
  while (stack.length) for (const child of children.get(stack.pop()) ?? []) found.push(child), stack.push(child);
  return found;
}
function chromiumMemory() {
  let rss = 0;
  let pss = 0;
  let rendererPss = 0;
  let processes = 0;
  for (const pid of descendants(process.pid)) {
    try {
      // chromium's children rewrite their argv as one space-joined string.
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split(/[\0 ]/).filter(Boolean);
      if (!command[0] || !/chrom/.test(command[0])) continue;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const r = Number(/^Rss:\s+(\d+)/m.exec(rollup)[1]);
      const p = Number(/^Pss:\s+(\d+)/m.exec(rollup)[1]);
      rss += r;
      pss += p;
      processes += 1;
      if (command.includes("--type=renderer")) rendererPss = Math.max(rendererPss, p);
    } catch {}
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024, rendererPssMb: rendererPss / 1024, processes };
}
/** Peak memory of chromium's processes: sampled every `everyMs` until `pause` (so that it does not run beside timed work), then when asked. */
function memorySampler(everyMs = 250) {
  const peak = { rssMb: 0, pssMb: 0, rendererPssMb: 0, processes: 0 };
  const sample = () => {
    const now = chromiumMemory();
    for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], now[key]);
    return now;
  };
  let timer = setInterval(sample, everyMs);
  return {
    sample,
    pause() {
      clearInterval(timer);
      timer = undefined;
      sample();
    },
    stop() {
      clearInterval(timer);
      sample();
      return Object.fromEntries(Object.entries(peak).map(([key, value]) => [key, round(value, 1)]));
    },
  };
}

/**
 * JSHeapUsedSize (CDP Performance.getMetrics): sampled every 100 ms while loading (a busy
 * renderer answers late: no sample then), then read when asked (`now`), so that the sampling
 * does not run beside the timed filters; `peak` covers both.
 */
async function heapSampler(cdp) {
  await cdp.send("Performance.enable");
  let sampling = true;
  let peak = 0;
  let samples = 0;
  const read = async () => {
    const answer = await Promise.race([
      cdp.send("Performance.getMetrics").catch(() => null),
      sleep(3000).then(() => null),
    ]);
    const used = answer?.metrics.find((metric) => metric.name === "JSHeapUsedSize")?.value;
    if (used === undefined) return null;
    samples += 1;
    peak = Math.max(peak, used);
    return used / 2 ** 20;
  };
  const loop = (async () => {
    while (sampling) {
      await read();
      await sleep(100);
    }
  })();
  return {
    now: async () => round(await read(), 1),
    async stopSampling() {
      sampling = false;
      await Promise.race([loop, sleep(5000)]);
    },
    peak: () => ({ peakMb: round(peak / 2 ** 20, 1), samples }),
  };
}

/** Marks the moment body[data-ready=true] appears, and the frame after it, in performance.now() (navigation start = 0). */
const INIT_SCRIPT = `(() => {
  window.__bench = { ready: null, readyPainted: null };
  const mark = () => {
    if (window.__bench.ready !== null || !document.body || document.body.getAttribute("data-ready") !== "true") return;
    window.__bench.ready = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { window.__bench.readyPainted = performance.now(); }));
  };
  new MutationObserver(mark).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
})();`;

/** A static server of a folder on 127.0.0.1 (what any web server would do with the site). */
function serveFolder(root) {
  const types = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
  };
  const server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? "/").split("?")[0]);
    const file = resolve(root, `.${path === "/" ? "/index.html" : path}`);
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found\n");
      return;
    }
    response.writeHead(200, {
      "content-type": types[extname(file)] ?? "application/octet-stream",
      "cache-control": "no-store",
    });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolveServer) =>
    server.listen(0, "127.0.0.1", () =>
      resolveServer({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

/** `loclab view RUN` in a child: its URL, and the seconds until it printed it (the summary is made first). */
async function startView(run) {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, "view", run, "--poll-seconds", "3600"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const url = await new Promise((resolveUrl, reject) => {
    child.stdout.on("data", (chunk) => {
      const found = /http:\/\/127\.0\.0\.1:\d+\//.exec(String(chunk));
      if (found) resolveUrl(found[0]);
    });
    child.once("exit", (code) => reject(new Error(`loclab view exited (${code}): ${stderr.slice(-1000)}`)));
  });
  return {
    url,
    startSeconds: round((performance.now() - started) / 1000, 2),
    pid: child.pid,
    close: () =>
      new Promise((resolveClose) => {
        child.once("exit", resolveClose);
        child.kill("SIGTERM");
      }),
  };
}

async function openContext(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript(INIT_SCRIPT);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  // Failed loads are named by their URL (the response or the failure), so that the same-origin
  // blank page's own 404s (itself, its favicon) can be left out; the console's copy of them is not kept.
  const blank = (url) => /\/(__blank|favicon\.ico|blank\.html)$/.test(url);
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      errors.push(`console: ${message.text()}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400 && !blank(response.url())) errors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  page.on("requestfailed", (request) => {
    if (!blank(request.url())) errors.push(`failed: ${request.url()}: ${request.failure()?.errorText}`);
  });
  let crashed = false;
  const crash = new Promise((resolveCrash) =>
    page.on("crash", () => {
      crashed = true;
      resolveCrash("crash");
    }),
  );
  return { context, page, errors, crash, isCrashed: () => crashed };
}

/** Goes first to a page of the same origin (so the renderer and the CDP session stay across the navigation measured). */
async function sameOriginBlank(page, base, errors) {
  const blank = base.startsWith("file:") ? pathToFileURL(join(WORK, "blank.html")).href : new URL("__blank", base).href;
  if (base.startsWith("file:")) writeFileSync(join(WORK, "blank.html"), "<!doctype html><title>blank</title>\n");
  await page.goto(blank);
  // The blank page's own 404 (over HTTP) is not the site's.
  errors.length = 0;
}

const inPage = {
  load: () => {
    const paint = Object.fromEntries(
      performance.getEntriesByType("paint").map((entry) => [entry.name, entry.startTime]),
    );
    const summary = performance.getEntriesByType("resource").find((entry) => /data\/summary\.js/.test(entry.name));
    return {
      firstPaint: paint["first-paint"] ?? null,
      firstContentfulPaint: paint["first-contentful-paint"] ?? null,
      ready: window.__bench.ready,
      readyPainted: window.__bench.readyPainted,
      summaryResponseEnd: summary ? summary.responseEnd : null,
      domRows: document.querySelectorAll(".vt-row").length,
      count: document.getElementById("count")?.textContent ?? null,
      rows: window.loclab?.summary?.rows?.t?.length ?? null,
    };
  },
  filter: async (expression) => {
    const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const t0 = performance.now();
    const ms = window.loclab.filterNow(expression);
    const sync = performance.now() - t0;
    await frame();
    return {
      ms,
      syncMs: sync,
      frameMs: performance.now() - t0,
      rows: window.loclab.order.length,
      lastFilterMs: window.loclab.lastFilterMs,
      error: window.loclab.filterError ? String(window.loclab.filterError.message) : null,
    };
  },
  sort: async () => {
    const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const turns = window.loclab.summary.rows.turns;
    let min = Infinity;
    let max = -Infinity;
    for (const value of turns) {
      if (typeof value !== "number") continue;
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    const out = [];
    for (const direction of ["ascending", "descending"]) {
      const head = document.querySelector('.vt-head span[data-column="turns"]');
      const t0 = performance.now();
      head.click();
      const ms = performance.now() - t0;
      await frame();
      const frameMs = performance.now() - t0;
      // The row's cells follow the header's (a column without any value is not shown).
      const at = [...document.querySelectorAll(".vt-head span")].findIndex((span) => span.dataset.column === "turns");
      const shown = Number(document.querySelector(".vt-row").children[at].textContent);
      out.push({ direction, ms, frameMs, firstTurns: shown, expected: direction === "ascending" ? min : max });
    }
    window.loclab.sort = { column: null, descending: false };
    window.loclab.filterNow("");
    return out;
  },
  scroll: async (target) => {
    const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const body = document.getElementById("rows");
    const t0 = performance.now();
    body.scrollTop = target * 24;
    await frame();
    const ms = performance.now() - t0;
    const top = body.getBoundingClientRect().top;
    const row = document.elementFromPoint(200, top + 5)?.closest(".vt-row");
    const expectedRow = window.loclab.order[target];
    return {
      ms,
      domRows: document.querySelectorAll(".vt-row").length,
      rowAtTop: row ? Number(row.getAttribute("data-row")) : null,
      instanceAtTop: row ? row.children[0].textContent : null,
      expectedRow,
      expectedInstance: window.loclab.summary.rows.instance[expectedRow],
      offsetPx: row ? row.getBoundingClientRect().top - top : null,
    };
  },
  open: async (id) => {
    const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const t0 = performance.now();
    const shown = new Promise((done) => {
      const observer = new MutationObserver(() => {
        if (document.getElementById("steps")) {
          observer.disconnect();
          done(performance.now() - t0);
        }
      });
      observer.observe(document.getElementById("main"), { childList: true, subtree: true });
    });
    location.hash = `#/t/${id}`;
    const stepsMs = await shown;
    await frame();
    return { stepsMs, paintedMs: performance.now() - t0, steps: document.querySelectorAll("#steps .step").length };
  },
};

/** One fresh context on the instance table: load, filters, sort, scroll, two trajectories, memory. */
async function measureOnce(browser, base, { scrollTarget, trajectories }) {
  const { context, page, errors } = await openContext(browser);
  try {
    await sameOriginBlank(page, base, errors);
    const cdp = await context.newCDPSession(page);
    const heap = await heapSampler(cdp);
    const memory = memorySampler();
    await page.goto(`${base}#/instances`, { waitUntil: "commit" });
    await page.waitForFunction(() => window.__bench && window.__bench.readyPainted !== null, null, {
      timeout: 120_000,
      polling: 50,
    });
    const load = await page.evaluate(inPage.load);
    await heap.stopSampling();
    memory.pause();
    const heapAtReady = await heap.now();
    const filters = [];
    for (let pass = 0; pass < 3; pass += 1)
      for (const expression of FILTERS)
        filters.push({ expression, pass, ...(await page.evaluate(inPage.filter, expression)) });
    const heapAfterFilters = await heap.now();
    memory.sample();
    const sort = await page.evaluate(inPage.sort);
    const scroll = await page.evaluate(inPage.scroll, scrollTarget);
    const opened = [];
    for (const item of trajectories) opened.push({ ...item, ...(await page.evaluate(inPage.open, item.id)) });
    const heapEnd = await heap.now();
    return {
      load,
      heapAtReady,
      heapAfterFilters,
      heapEnd,
      heap: heap.peak(),
      memory: memory.stop(),
      filters,
      sort,
      scroll,
      opened,
      errors: [...errors],
    };
  } finally {
    await context.close();
  }
}

/** A CPU profile of one load of the instance table (CDP Profiler), summed by function and by script. */
async function profileLoad(browser, base, file) {
  const { context, page, errors } = await openContext(browser);
  try {
    await sameOriginBlank(page, base, errors);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 250 });
    await cdp.send("Profiler.start");
    await page.goto(`${base}#/instances`, { waitUntil: "commit" });
    await page.waitForFunction(() => window.__bench && window.__bench.readyPainted !== null, null, {
      timeout: 120_000,
      polling: 50,
    });
    const load = await page.evaluate(inPage.load);
    const { profile } = await cdp.send("Profiler.stop");
    writeFileSync(file, JSON.stringify(profile));
    // Self time per node from the samples and their time deltas.
    const self = new Map();
    profile.samples.forEach((node, i) => self.set(node, (self.get(node) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    const byFunction = new Map();
    const byScript = new Map();
    for (const node of profile.nodes) {
      const us = self.get(node.id) ?? 0;
      if (!us) continue;
      const frame = node.callFrame;
      const script = frame.url
        ? basename(frame.url)
        : frame.functionName.startsWith("(")
          ? frame.functionName
          : "(native/V8)";
      const name =
        `${frame.functionName || "(anonymous)"} ${frame.url ? `${basename(frame.url)}:${frame.lineNumber + 1}` : ""}`.trim();
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
      byScript.set(script, (byScript.get(script) ?? 0) + us);
    }
    const top = (map, n) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([name, us]) => ({ name, ms: round(us / 1000, 1) }));
    return { file, load, byScript: top(byScript, 10), byFunction: top(byFunction, 15) };
  } finally {
    await context.close();
  }
}

/**
 * The search view over every trajectory (#/search?q=WORD): the one view that reads them all
 * (four at a time, each loaded as its script). Seconds until done, matches, chromium's peak
 * memory, the JS heap at the end and after a forced garbage collection.
 */
async function measureSearch(browser, base, word) {
  const { context, page, errors } = await openContext(browser);
  try {
    await sameOriginBlank(page, base, errors);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const used = async () =>
      round(
        (await cdp.send("Performance.getMetrics")).metrics.find((metric) => metric.name === "JSHeapUsedSize").value /
          2 ** 20,
        1,
      );
    const memory = memorySampler(1000);
    const started = performance.now();
    // waitUntil commit: the scripts the search adds hold the page's load event back until the search ends.
    await page.goto(`${base}#/search?q=${encodeURIComponent(word)}`, { waitUntil: "commit" });
    await page.waitForSelector("body[data-search=done]", { timeout: 900_000 });
    const seconds = round((performance.now() - started) / 1000, 1);
    const progress = await page.textContent("#search-progress");
    const found = (await page.locator("#search-results tr").count()) - 1;
    const heapAtEnd = await used();
    await cdp.send("HeapProfiler.collectGarbage");
    return {
      word,
      seconds,
      progress,
      found,
      jsHeapMb: { atEnd: heapAtEnd, afterGc: await used() },
      chromiumMb: memory.stop(),
      errors: [...errors],
    };
  } finally {
    await context.close();
  }
}

const stat = (values) => {
  const list = values.filter((value) => typeof value === "number");
  return list.length ? { median: round(median(list), 1), max: round(Math.max(...list), 1), n: list.length } : null;
};

/** The --repeat fresh contexts of one way of opening the site, summed up. */
async function measureMode(browser, name, base, options) {
  const runs = [];
  for (let i = 0; i < REPEAT; i += 1) {
    runs.push(await measureOnce(browser, base, options));
    log(
      `${name} ${i + 1}/${REPEAT}: ready ${round(runs.at(-1).load.ready, 0)} ms, first paint ${round(runs.at(-1).load.firstPaint, 0)} ms`,
    );
  }
  const filters = FILTERS.map((expression) => {
    const all = runs.flatMap((run) => run.filters.filter((item) => item.expression === expression));
    const first = runs.map((run) => run.filters.find((item) => item.expression === expression));
    return {
      expression,
      rows: [...new Set(all.map((item) => item.rows))],
      error: all.find((item) => item.error)?.error ?? null,
      filterNowMs: stat(all.map((item) => item.ms)),
      firstCallMs: stat(first.map((item) => item.ms)),
      toNextFrameMs: stat(all.map((item) => item.frameMs)),
    };
  });
  const sort = ["ascending", "descending"].map((direction) => {
    const all = runs.map((run) => run.sort.find((item) => item.direction === direction));
    return {
      direction,
      clickMs: stat(all.map((item) => item.ms)),
      toNextFrameMs: stat(all.map((item) => item.frameMs)),
      firstRowRight: all.every((item) => item.firstTurns === item.expected),
    };
  });
  const opened = options.trajectories.map((item) => {
    const all = runs.map((run) => run.opened.find((o) => o.id === item.id));
    return {
      ...item,
      stepsShownMs: stat(all.map((o) => o.stepsMs)),
      paintedMs: stat(all.map((o) => o.paintedMs)),
      stepsShown: all[0].steps,
    };
  });
  const scroll = runs.map((run) => run.scroll);
  return {
    url: `${base}#/instances`,
    runs: REPEAT,
    firstPaintMs: stat(runs.map((run) => run.load.firstPaint)),
    firstContentfulPaintMs: stat(runs.map((run) => run.load.firstContentfulPaint)),
    summaryLoadedMs: stat(runs.map((run) => run.load.summaryResponseEnd)),
    readyMs: stat(runs.map((run) => run.load.ready)),
    readyPaintedMs: stat(runs.map((run) => run.load.readyPainted)),
    rowsShown: runs[0].load.count,
    domRowsAtReady: stat(runs.map((run) => run.load.domRows)),
    filters,
    sort,
    scroll: {
      target: options.scrollTarget,
      domRows: stat(scroll.map((item) => item.domRows)),
      rightRowAtTop: scroll.every(
        (item) => item.rowAtTop === item.expectedRow && item.instanceAtTop === item.expectedInstance,
      ),
      offsetPx: stat(scroll.map((item) => item.offsetPx)),
      toNextFrameMs: stat(scroll.map((item) => item.ms)),
      example: scroll[0],
    },
    opened,
    jsHeapMb: {
      peak: stat(runs.map((run) => run.heap.peakMb)),
      atReady: stat(runs.map((run) => run.heapAtReady)),
      afterFilters: stat(runs.map((run) => run.heapAfterFilters)),
      atEnd: stat(runs.map((run) => run.heapEnd)),
    },
    chromiumMb: {
      peakPss: stat(runs.map((run) => run.memory.pssMb)),
      peakRss: stat(runs.map((run) => run.memory.rssMb)),
      peakRendererPss: stat(runs.map((run) => run.memory.rendererPssMb)),
      processes: stat(runs.map((run) => run.memory.processes)),
    },
    errors: [...new Set(runs.flatMap((run) => run.errors))],
  };
}

// ------------------------------------------------------------------ 4. load everything
/**
 * The site's page with every trajectory loaded up front: data/all.js is one script,
 * loclabData("all", [view, …]) (the data/t/<n>.js payloads of trajectories 0..n-1, as written),
 * run before the app; derive.js then makes the instance table's rows from the views (instance,
 * cell, outcome, exit, acc1 from the final files against the gold, turns, tokens) and hands
 * them to the same app.js as its summary.
 */
function buildLoadAll(site, n) {
  const dir = join(WORK, `load-all-${n}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "data"), { recursive: true });
  for (const asset of ["app.css", "filter.js", "app.js"]) copyFileSync(join(site, asset), join(dir, asset));
  const index = readFileSync(join(site, "index.html"), "utf8");
  const scripts = '<script src="filter.js"></script>';
  if (!index.includes(scripts)) throw new Error("the site's index.html no longer loads filter.js as expected");
  writeFileSync(
    join(dir, "index.html"),
    index.replace(
      scripts,
      `<script src="shim.js"></script>\n<script src="data/all.js"></script>\n<script src="derive.js"></script>\n${scripts}`,
    ),
  );
  writeFileSync(
    join(dir, "shim.js"),
    'window.__loclabAll = null;\nwindow.loclabData = function (key, value) { if (key === "all") window.__loclabAll = value; };\n',
  );
  writeFileSync(
    join(dir, "derive.js"),
    `(function () {
  var all = window.__loclabAll;
  var names = ["instance", "cell", "outcome", "exit", "acc1", "turns", "tokens"];
  var rows = { t: [] };
  names.forEach(function (name) { rows[name] = []; });
  (all || []).forEach(function (view) {
    var tokens = 0;
    view.steps.forEach(function (step) { tokens += step.tokens || 0; });
    rows.instance.push(view.instanceId);
    rows.cell.push(view.cell);
    rows.outcome.push(view.outcome);
    rows.exit.push(view.exit);
    rows.acc1.push(view.gold ? (view.final && view.gold.files.indexOf(view.final.files[0]) >= 0 ? 1 : 0) : null);
    rows.turns.push(view.steps.length);
    rows.tokens.push(tokens);
    rows.t.push(view.id);
  });
  var types = { acc1: "number", turns: "number", tokens: "number" };
  window.__loclabAllSummary = {
    kind: "loclab.site-summary", schemaVersion: 1, title: "every trajectory loaded first (" + rows.t.length + ")",
    source: { kind: "run", dir: "", format: "loclab" }, generatedAt: "", revision: 0, binary: "acc1",
    columns: names.map(function (name) { return { name: name, type: types[name] || "string", description: "" }; }),
    rows: rows, cells: [], acrossSeeds: [], comparisons: [], pairs: [], charts: [], manifest: null,
    problems: all ? [] : ["data/all.js did not load"]
  };
  window.loclabData = undefined;
})();
`,
  );
  writeFileSync(join(dir, "data", "summary.js"), 'loclabData("summary", window.__loclabAllSummary);\n');
  const fd = openSync(join(dir, "data", "all.js"), "w");
  let bytes = writeSync(fd, 'loclabData("all",[');
  for (let id = 0; id < n; id += 1) {
    const text = readFileSync(join(site, "data", "t", `${id}.js`), "utf8");
    const prefix = `loclabData(${JSON.stringify(`t/${id}`)},`;
    if (!text.startsWith(prefix) || !text.endsWith(");\n")) throw new Error(`data/t/${id}.js: not a loclabData script`);
    bytes += writeSync(fd, `${id === 0 ? "" : ","}${text.slice(prefix.length, -3)}`);
  }
  bytes += writeSync(fd, "]);\n");
  closeSync(fd);
  return { dir, bytes };
}

async function measureLoadAllOnce(browser, dir, n) {
  const { context, page, errors, crash, isCrashed } = await openContext(browser);
  const base = pathToFileURL(join(dir, "index.html")).href;
  const memory = memorySampler(500);
  let heap = null;
  const answer = { outcome: null, seconds: null, load: null, allLoaded: null, heapAtReady: null };
  const started = performance.now();
  try {
    await sameOriginBlank(page, base, errors);
    const cdp = await context.newCDPSession(page);
    heap = await heapSampler(cdp);
    await page.goto(`${base}#/instances`, { waitUntil: "commit", timeout: LOAD_ALL_TIMEOUT_MS });
    const outcome = await Promise.race([
      page
        .waitForFunction(() => window.__bench && window.__bench.readyPainted !== null, null, {
          timeout: LOAD_ALL_TIMEOUT_MS,
          polling: 200,
        })
        .then(() => "ready"),
      crash,
    ]).catch((error) => `error: ${error.message.split("\n")[0]}`);
    answer.seconds = round((performance.now() - started) / 1000, 1);
    answer.outcome = outcome;
    if (outcome === "ready") {
      answer.load = await page.evaluate(inPage.load);
      answer.allLoaded = await page.evaluate(() => Array.isArray(window.__loclabAll));
      await heap.stopSampling();
      answer.heapAtReady = await heap.now();
      if (!answer.allLoaded || answer.load.rows !== n) answer.outcome = "ready without the data";
    }
  } catch (error) {
    answer.outcome = `error: ${error.message.split("\n")[0]}`;
  } finally {
    if (heap) await heap.stopSampling();
    answer.heap = heap?.peak() ?? null;
    answer.memory = memory.stop();
    answer.crashed = isCrashed();
    answer.errors = [...errors];
    await Promise.race([context.close().catch(() => {}), sleep(30_000)]);
  }
  return answer;
}

async function measureLoadAll(browser, site, size) {
  const built = buildLoadAll(site, size);
  const runs = [];
  for (let i = 0; i < LOAD_ALL_REPEAT; i += 1) {
    const run = await measureLoadAllOnce(browser, built.dir, size);
    runs.push(run);
    log(
      `load everything, ${size} trajectories (${mb(built.bytes)} MB script) ${i + 1}/${LOAD_ALL_REPEAT}: ${run.outcome} in ${run.seconds} s`,
    );
    if (run.outcome !== "ready") break;
  }
  rmSync(built.dir, { recursive: true, force: true });
  const good = runs.filter((run) => run.outcome === "ready");
  return {
    trajectories: size,
    scriptBytes: built.bytes,
    v8MaxStringLength: 2 ** 29 - 24,
    outcome: runs.every((run) => run.outcome === "ready") ? "ready" : runs.at(-1).outcome,
    runs: runs.length,
    firstContentfulPaintMs: stat(good.map((run) => run.load.firstContentfulPaint)),
    readyMs: stat(good.map((run) => run.load.ready)),
    readyPaintedMs: stat(good.map((run) => run.load.readyPainted)),
    jsHeapPeakMb: stat(runs.map((run) => run.heap?.peakMb)),
    jsHeapAtReadyMb: stat(good.map((run) => run.heapAtReady)),
    chromiumPeakPssMb: stat(runs.map((run) => run.memory?.pssMb)),
    chromiumPeakRssMb: stat(runs.map((run) => run.memory?.rssMb)),
    rendererPeakPssMb: stat(runs.map((run) => run.memory?.rendererPssMb)),
    secondsUntilOutcome: stat(runs.map((run) => run.seconds)),
    errors: [...new Set(runs.flatMap((run) => run.errors))].slice(0, 10),
  };
}

// ------------------------------------------------------------------ main
const machineAtStart = machine();
const result = {
  benchmark: "viewer-scale",
  measuredAt: new Date().toISOString(),
  machine: machineAtStart,
  loclab: revisionOf(ROOT),
  goals: GOALS,
  parameters: {
    trajectories: N,
    targetMb: TARGET_MB,
    repeat: REPEAT,
    loadAllRepeat: LOAD_ALL_REPEAT,
    loadAllSizes: LOAD_ALL_SIZES,
    work: WORK,
  },
  notes: [
    "The run is synthetic: a small real run (toy benchmark, policy model server) cloned under new instance ids; added turns are view_file calls showing windows of django's source under the toy files' names. Each clone is a real record and trajectory that loclab reads; its acc1 is what scoreRun gives it.",
    "Page timings are from navigation start in a fresh browser context, after a blank page of the same origin (the renderer process is already running); the run folder and site are in the page cache (warm disk).",
    "Load everything is not Inspect's viewer. It emulates how Inspect's viewer treats a .json log: the whole log is read and parsed before the list shows. Inspect's .eval logs (zip) load samples on demand, as loclab does. The emulation uses the same page and app.js, and builds 7 of the table's 16 columns from the views.",
  ],
};

try {
  // 1. the run
  log(`work folder ${WORK}`);
  const run = await makeRun();
  result.run = run;
  log(
    `run: ${run.trajectories} trajectories, ${mb(run.bytes)} MB in ${run.files} files${run.reused ? " (reused)" : `, made in ${run.generateSeconds} s`}`,
  );

  // 2. loclab report
  const site = join(WORK, "site");
  rmSync(site, { recursive: true, force: true });
  log("loclab report (new site)…");
  const first = timedReport(run.dir, site);
  log(`report: ${first.seconds} s, peak RSS ${first.peakRssMb} MB; again with the files kept…`);
  const second = timedReport(run.dir, site);
  const facts = siteFacts(site);
  result.report = { command: `node packages/cli/dist/bin.js report RUN --out SITE`, first, second, site: facts };
  if (facts.check.problems.length) log(`summary problems: ${facts.check.problems.slice(0, 5).join(" | ")}`);

  // 3. the browser
  if (!CHROMIUM) result.browser = { skipped: "no chromium (apt-get install chromium)" };
  else {
    const { chromium } = await import("playwright-core");
    let browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
    result.browser = { chromium: browser.version(), launchArgs: LAUNCH_ARGS, viewport: "1280x900" };
    const options = {
      scrollTarget: Math.min(5000, Math.floor(facts.check.rows / 2)),
      trajectories: [
        {
          which: "largest",
          id: facts.largestTrajectory.id,
          bytes: facts.largestTrajectory.bytes,
          turns: facts.turnsOfLargest,
        },
        {
          which: "median",
          id: facts.medianTrajectory.id,
          bytes: facts.medianTrajectory.bytes,
          turns: facts.turnsOfMedian,
        },
      ],
    };
    const fileBase = pathToFileURL(join(site, "index.html")).href;
    result.browser.file = await measureMode(browser, "file://", fileBase, options);
    const server = await serveFolder(site);
    try {
      result.browser.http = await measureMode(browser, "http", `${server.url}index.html`, options);
    } finally {
      await server.close();
    }
    if (!flag("--skip-view")) {
      const view = await startView(run.dir);
      try {
        result.browser.view = {
          startSeconds: view.startSeconds,
          ...(await measureMode(browser, "loclab view", view.url, options)),
        };
      } finally {
        await view.close();
      }
    }
    if (flag("--profile") || (result.browser.file.readyMs?.median ?? 0) > 1000) {
      log("profiling a load…");
      result.browser.profile = await profileLoad(browser, fileBase, join(WORK, "load.cpuprofile"));
    }

    if (!flag("--skip-search")) {
      const spec = JSON.parse(readFileSync(join(run.dir, "manifest.json"), "utf8")).spec;
      const word = JSON.parse(readFileSync(spec.benchmark, "utf8").split("\n")[0]).function ?? "def ";
      log(`searching every trajectory for ${JSON.stringify(word)}…`);
      result.browser.searchAll = await measureSearch(browser, fileBase, word);
    }

    // 4. load everything
    if (!flag("--skip-load-all")) {
      result.loadAll = [];
      let failed = null;
      for (const size of LOAD_ALL_SIZES) {
        if (failed) {
          result.loadAll.push({ trajectories: size, outcome: `not tried: ${failed} trajectories already failed` });
          continue;
        }
        if (!browser.isConnected()) browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
        const measured = await measureLoadAll(browser, site, size);
        result.loadAll.push(measured);
        if (measured.outcome !== "ready") failed = size;
      }
    }
    await browser.close().catch(() => {});
  }
} finally {
  // Only a folder this benchmark made (its mark inside) is removed, never one it refused.
  if (!flag("--keep") && existsSync(MARK)) rmSync(WORK, { recursive: true, force: true });
}

const revisionAtEnd = revisionOf(ROOT);
if (JSON.stringify(revisionAtEnd) !== JSON.stringify(result.loclab)) {
  result.loclabAtEnd = revisionAtEnd;
  result.notes.push("The repository changed while the benchmark ran: the figures may mix two versions of the viewer.");
}
mkdirSync(dirname(OUT_FILE), { recursive: true });
writeFileSync(OUT_FILE, `${JSON.stringify(result, null, 2)}\n`);
printTable(result);
console.log(
  `wrote ${OUT_FILE}${flag("--keep") ? `\nkept ${WORK} (the run and site, for the next run with --keep)` : ""}`,
);

/** The repository's commit (and whether tracked files differ from it): the viewer measured. */
function revisionOf(root) {
  const git = (...args) => spawnSync("git", ["-C", root, ...args], { encoding: "utf8" });
  const head = git("rev-parse", "HEAD");
  if (head.status !== 0) return { gitRevision: null };
  return {
    gitRevision: head.stdout.trim(),
    modified: git("status", "--porcelain", "--untracked-files=no").stdout.trim() !== "",
  };
}

function printTable(r) {
  const s = (x) => (x ? `${x.median} / ${x.max}` : "–");
  const line = (label, ...cells) =>
    console.log(`  ${label.padEnd(52)}${cells.map((cell) => String(cell).padEnd(20)).join("")}`);
  console.log(
    `viewer-scale (loclab ${r.loclab.gitRevision?.slice(0, 7) ?? "?"}${r.loclab.modified ? ", modified" : ""}): ${r.run.trajectories} trajectories (${r.run.instances} instances × ${r.run.cells} cells), ${mb(r.run.bytes)} MB in ${r.run.files} files; turns ${r.run.turns.min}–${r.run.turns.max}`,
  );
  const rep = r.report;
  console.log(
    `loclab report: ${rep.first.seconds} s, peak RSS ${rep.first.peakRssMb} MB (${rep.first.written} written); again: ${rep.second.seconds} s, ${rep.second.peakRssMb} MB (${rep.second.kept} kept)`,
  );
  console.log(
    `site: ${mb(rep.site.bytes)} MB in ${rep.site.files} files; summary ${mb(rep.site.summaryBytes)} MB; trajectory files ${mb(rep.site.trajectoryBytes)} MB (largest ${round(rep.site.largestTrajectory.bytes / 1024, 0)} KiB); problems ${rep.site.check.problems.length}, acc1 values ${rep.site.check.acc1Values}/${rep.site.check.rows}`,
  );
  const b = r.browser;
  if (!b || b.skipped) return console.log(`browser: ${b?.skipped}`);
  const modes = ["file", "http", "view"].filter((mode) => b[mode]);
  console.log(`browser (chromium ${b.chromium}), median / max of ${REPEAT} fresh contexts, ms:`);
  line("", ...modes.map((mode) => ({ file: "file://", http: "http (static)", view: "loclab view" })[mode]));
  line("first paint", ...modes.map((m) => s(b[m].firstPaintMs)));
  line("first contentful paint", ...modes.map((m) => s(b[m].firstContentfulPaintMs)));
  line("summary script loaded", ...modes.map((m) => s(b[m].summaryLoadedMs)));
  line("ready (data-ready)", ...modes.map((m) => s(b[m].readyMs)));
  line("ready, next frame", ...modes.map((m) => s(b[m].readyPaintedMs)));
  for (const [i, filter] of b.file.filters.entries()) {
    line(
      `filter ${JSON.stringify(filter.expression).slice(0, 40)} (${filter.rows.join("/")} rows)`,
      ...modes.map((m) => s(b[m].filters[i].filterNowMs)),
    );
    line("   … to next painted frame", ...modes.map((m) => s(b[m].filters[i].toNextFrameMs)));
  }
  for (const [i, sort] of b.file.sort.entries())
    line(
      `sort by turns, ${sort.direction} (click; to next frame)`,
      ...modes.map((m) => `${s(b[m].sort[i].clickMs)}; ${b[m].sort[i].toNextFrameMs?.median}`),
    );
  for (const [i, opened] of b.file.opened.entries())
    line(
      `open trajectory ${opened.id} (${opened.which}, ${round(opened.bytes / 1024, 0)} KiB, ${opened.turns} turns)`,
      ...modes.map((m) => s(b[m].opened[i].stepsShownMs)),
    );
  line(
    `rows in DOM; row ${b.file.scroll.target} at top after scroll`,
    ...modes.map((m) => `${b[m].scroll.domRows?.max}; ${b[m].scroll.rightRowAtTop}`),
  );
  line("JS heap peak MB", ...modes.map((m) => s(b[m].jsHeapMb.peak)));
  line("chromium PSS peak MB (all processes)", ...modes.map((m) => s(b[m].chromiumMb.peakPss)));
  line("chromium RSS peak MB (all processes)", ...modes.map((m) => s(b[m].chromiumMb.peakRss)));
  line("renderer PSS peak MB", ...modes.map((m) => s(b[m].chromiumMb.peakRendererPss)));
  if (b.view) console.log(`  loclab view: ${b.view.startSeconds} s until it served (the summary is made at start)`);
  if (b.profile) {
    console.log(`  CPU profile of one load (${b.profile.file}), self time by script:`);
    for (const item of b.profile.byScript) console.log(`    ${String(item.ms).padStart(8)} ms  ${item.name}`);
    console.log("  by function:");
    for (const item of b.profile.byFunction.slice(0, 10))
      console.log(`    ${String(item.ms).padStart(8)} ms  ${item.name}`);
  }
  if (b.searchAll) {
    const x = b.searchAll;
    console.log(
      `  search every trajectory for ${JSON.stringify(x.word)} (file://): ${x.seconds} s, ${x.found} with matches; chromium peak PSS ${x.chromiumMb.pssMb} MB; JS heap at the end ${x.jsHeapMb.atEnd} MB, ${x.jsHeapMb.afterGc} MB after a GC`,
    );
  }
  if (r.loadAll) {
    console.log("load everything first (one data script of every trajectory view, then the same table), file://:");
    console.log(
      `  ${"trajectories".padEnd(14)}${"script MB".padEnd(12)}${"ready ms".padEnd(20)}${"JS heap peak MB".padEnd(20)}${"PSS peak MB".padEnd(20)}outcome`,
    );
    for (const item of r.loadAll)
      console.log(
        `  ${String(item.trajectories).padEnd(14)}${String(item.scriptBytes ? mb(item.scriptBytes) : "–").padEnd(12)}${s(item.readyMs).padEnd(20)}${s(item.jsHeapPeakMb).padEnd(20)}${s(item.chromiumPeakPssMb).padEnd(20)}${item.outcome}${item.errors?.length ? ` (${item.errors[0].slice(0, 120)})` : ""}`,
      );
  }
}
