// Benchmark: @loclab/analysis reading synthetic sets of agent trajectories with bounded memory
// (issue 8: target at least 50 MB/s and under 500 MB resident here; issue 18: at least Python's
// json.load, under 200 MB). Two sets by default, one after the other: 201 MB (the issue 18
// row) and 1 GiB (issue 8's).
//   Each set is generated at benchmark time in a temp folder and deleted afterwards: three runs,
//   - mini-swe-agent 2.x: many .traj.json files of 0.1–1.5 MB and three very large ones
//     (~120 MB each at 1 GiB, thousands of steps; sizes scale with the set),
//   - SWE-agent 0.x: .traj files of 0.2–1 MB and one very large (~100 MB; trajectory[] and the
//     history[] that repeats it),
//   - loclab JSONL: files of 0.1–0.6 MB and one very large (~60 MB),
//   with planted features (LimitsExceeded, finish_reason length, a line repeated 8 times,
//   /workspace/src/ paths, five "No such file" observations) and resolved labels, so the
//   breakdown's counts can be checked against what was planted.
//   The analysis (readRun + breakdownRuns through the public API, built dist) runs in a child
//   process, so its peak RSS (worker threads included) is its own: that is the figure reported,
//   with readRun's defaults (worker threads for a run of 256 MiB or more, or of 16 MiB or more
//   once the process has started them). For comparison, a
//   second child reads the same runs in its main thread only (threads: 1), and a third with
//   every file parsed whole by JSON.parse (no streaming, main thread). A fourth does what
//   Python's side does, in Node: JSON.parse of every file and nothing else (--parse-only).
//   Then the real runs of the shared data (trajectories/: two mini-swe-agent runs, SWE-agent,
//   AutoCodeRover; $LOCLAB_DATA_DIR or shared/data found as the tests find it; skipped with a
//   note when absent, BENCH_SKIP_REAL=1 to skip): the four read by readRun with its defaults,
//   one after another in a fresh child (as `loclab breakdown` reads the runs it is given),
//   against Python's json.load and Node's JSON.parse alone on each folder, interleaved,
//   medians of 5. Real logs hold more, smaller messages than the synthetic ones, so the
//   per-message work weighs more: this is the row users feel.
// Figures are printed and written to results/bench-trajectories-streaming.json; nothing is asserted.
//
//   npm run bench            (from the repository root; builds first)
//   BENCH_TRAJECTORY_BYTES=200000000 node benchmarks/trajectories-streaming.mjs   (one set; comma-separated for several)
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { seededRandom } from "@loclab/statistics";
import { machine, median, pythonExecutable } from "./lib/measure.mjs";

const SELF = fileURLToPath(import.meta.url);

// ------------------------------------------------------------------ child: V8's JSON.parse alone
// What Python's side does (benchmarks/lib/python_json_load.py), in Node: every file of the
// three runs read whole and parsed by JSON.parse (a JSONL file line by line), in one thread,
// nothing done with the documents. The floor of any reader built on JSON.parse in one thread.
if (process.argv[2] === "--parse-only") {
  const { readdirSync, readFileSync, statSync } = await import("node:fs");
  const files = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(jsonl|json|traj)$/.test(name)) files.push(path);
    }
  };
  // The synthetic set's three runs, or (--folders) the folders given, as python_json_load.py.
  const folders =
    process.argv[3] === "--folders"
      ? process.argv.slice(4)
      : ["mini", "swe", "loclab"].map((run) => join(process.argv[3], run));
  for (const folder of folders) walk(folder);
  const start = performance.now();
  let bytes = 0;
  for (const path of files) {
    const text = readFileSync(path, "utf8");
    bytes += Buffer.byteLength(text);
    if (path.endsWith(".jsonl")) {
      for (const line of text.split("\n")) if (line.trim()) JSON.parse(line);
    } else JSON.parse(text);
  }
  const seconds = (performance.now() - start) / 1000;
  process.stdout.write(
    JSON.stringify({
      files: files.length,
      bytes,
      seconds,
      mbPerSecond: bytes / 1e6 / seconds,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
  process.exit(0);
}

// ------------------------------------------------------------------ child: the real runs
// readRun of each real run folder given (FORMAT=DIR), with its defaults, one after another in
// one fresh process, as `loclab breakdown` reads the runs it is given: per run, the seconds,
// tasks, files read and problems.
if (process.argv[2] === "--real") {
  const { readRun } = await import("@loclab/analysis");
  const answers = [];
  for (const pair of process.argv.slice(3)) {
    const at = pair.indexOf("=");
    const [format, dir] = [pair.slice(0, at), pair.slice(at + 1)];
    const start = performance.now();
    const read = await readRun({ name: "real", format, dir });
    const seconds = (performance.now() - start) / 1000;
    answers.push({
      seconds,
      tasks: read.summaries.length,
      files: read.files,
      problems: read.problems.length,
      labels: read.labels !== null,
    });
  }
  process.stdout.write(JSON.stringify(answers));
  process.exit(0);
}

// ------------------------------------------------------------------ child: the analysis
if (process.argv[2] === "--analyse") {
  const { breakdownRuns, readRun, runInputOf } = await import("@loclab/analysis");
  const root = process.argv[3];
  const mode = process.argv[4];
  // streamed: readRun's defaults (worker threads for large runs, see readRun); one-thread: the
  // same in the main thread; whole: every file parsed whole by JSON.parse, in the main thread.
  const readOptions =
    mode === "whole"
      ? { maxWholeFileBytes: Number.POSITIVE_INFINITY, threads: 1 }
      : mode === "one-thread"
        ? { threads: 1 }
        : {};
  const specs = [
    { name: "mini", format: "mini-swe-agent", dir: join(root, "mini") },
    { name: "swe", format: "swe-agent", dir: join(root, "swe") },
    { name: "loclab", format: "loclab", dir: join(root, "loclab") },
  ];
  let peakSampled = 0;
  const sampler = setInterval(() => {
    peakSampled = Math.max(peakSampled, process.memoryUsage.rss());
  }, 50);
  const start = performance.now();
  const reads = [];
  const perRun = [];
  for (const spec of specs) {
    const t0 = performance.now();
    const read = await readRun(spec, readOptions);
    const seconds = (performance.now() - t0) / 1000;
    perRun.push({
      run: spec.name,
      files: read.files,
      bytes: read.bytes,
      threads: read.threads,
      seconds: +seconds.toFixed(2),
      mbPerSecond: +(read.bytes / 1e6 / seconds).toFixed(1),
      problems: read.problems.length,
    });
    reads.push(read);
  }
  const breakdown = breakdownRuns(reads.map((read) => runInputOf(read)));
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  const bytes = reads.reduce((sum, read) => sum + read.bytes, 0);
  const rows = breakdown.rows.map(
    ({
      run,
      tasks,
      solved,
      outOfBudget,
      wrongPatch,
      noPatch,
      medianCalls,
      loops,
      loopsFinishLength,
      loopsRepeatedLine,
      badPrefix,
      noFile,
    }) => ({
      run,
      tasks,
      solved,
      outOfBudget,
      wrongPatch,
      noPatch,
      medianCalls,
      loops,
      loopsFinishLength,
      loopsRepeatedLine,
      badPrefix,
      noFile,
    }),
  );
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    JSON.stringify({
      bytes,
      seconds,
      mbPerSecond: bytes / 1e6 / seconds,
      peakRssMb: Math.max(maxRssMb, peakSampled / 2 ** 20),
      threads: Math.max(...perRun.map((run) => run.threads)),
      perRun,
      rows,
    }),
  );
  process.exit(0);
}

// ------------------------------------------------------------------ parent: generate, measure, clean up
// The sets measured, in bytes: the issue's 201 MB set and the 1 GiB set of issue 8. Each is
// generated from the same seed, so a set is the same whether measured alone or with the other.
const TARGETS = (process.env.BENCH_TRAJECTORY_BYTES ?? `200000000,${2 ** 30}`).split(",").map((text) => {
  const bytes = Number(text);
  if (!Number.isFinite(bytes) || bytes < 1e6)
    throw new Error(
      `BENCH_TRAJECTORY_BYTES: ${JSON.stringify(text)} is not a size in bytes of at least 1e6 (comma-separated for several sets)`,
    );
  return bytes;
});
let TARGET = 0;
let scale = 0;

// The project's one seeded generator (xoshiro128**), so every run of the benchmark uses the same data.
let random = seededRandom(8);
const int = (lo, hi) => lo + random.nextBelow(hi - lo + 1);

// A pool of code-like observation texts (1–12 KB), stringified once.
const WORDS = [
  "def",
  "return",
  "self",
  "import",
  "class",
  "value",
  "None",
  "if",
  "for",
  "in",
  "models",
  "field",
  "query",
  "=",
  "(",
  ")",
  ":",
  "django",
  "path",
  "request",
];
// Made again with the generator reseeded for each set (measureSet), so each set's data is the
// same as when it is measured alone.
let POOL = [];
const makePool = () =>
  Array.from({ length: 64 }, () => {
    const lines = [];
    const target = int(1000, 12000);
    let size = 0;
    for (let n = 1; size < target; n += 1) {
      const line = `${n}: ${"    ".repeat(int(0, 3))}${Array.from({ length: int(3, 12) }, () => WORDS[int(0, WORDS.length - 1)]).join(" ")}`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join("\n");
  });
const NO_FILE = "cat: src/missing.py: No such file or directory";
const REPEATED = `THOUGHT: checking again.\n${"I need to look at the file once more.\n".repeat(8)}`;
const PATCH = "diff --git a/django/x.py b/django/x.py\n--- a/django/x.py\n+++ b/django/x.py\n@@ -1 +1 @@\n-a\n+b\n";
const json = (value) => JSON.stringify(value);

/** What each task plants, by its index. */
function plan(i) {
  return {
    noFile: i % 10 === 0,
    length: i % 25 === 0,
    repeated: i % 40 === 0,
    workspace: i % 50 === 0,
    limits: i % 20 === 0,
    resolved: i % 3 === 0,
  };
}

/** Writes a file piece by piece, returning its size. */
function writer(path) {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, "w");
  let bytes = 0;
  return {
    write(text) {
      bytes += writeSync(fd, text);
    },
    close() {
      closeSync(fd);
      return bytes;
    },
  };
}

/** The k-th step's command and observation, with the task's planted features on its first steps. */
function stepContent(p, k, steps) {
  let command = `grep -n "def" django/db/models/mod${k % 97}.py | head -50`;
  let observation = POOL[(k * 7) % POOL.length];
  let output = `THOUGHT: step ${k}, looking at the next file.`;
  let finish = "tool_calls";
  let call = true;
  if (p.noFile && k < 5) {
    command = `cat src/missing${k}.py`;
    observation = NO_FILE;
  }
  if (p.workspace && k === 5) command = "ls /workspace/src/app";
  if (p.length && k === 6) {
    output = `THOUGHT: ${"a long and winding explanation ".repeat(200)}`;
    finish = "length";
    call = false;
  }
  if (p.repeated && k === 7) output = REPEATED;
  if (k === steps - 1) {
    command = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt";
    observation = PATCH;
  }
  return { command, observation, output, finish, call };
}

function writeMini(path, id, i, targetBytes) {
  const p = plan(i);
  const out = writer(path);
  const steps = Math.max(8, Math.round(targetBytes / 16_000));
  const apiCalls = p.limits ? 250 : steps;
  out.write(
    `{"info": ${json({ model_stats: { instance_cost: 0.5, api_calls: apiCalls }, config: { agent: { step_limit: 250, cost_limit: 3 } }, mini_version: "2.2.7", exit_status: p.limits ? "LimitsExceeded" : "Submitted", submission: p.limits ? "" : PATCH })}, "messages": [`,
  );
  out.write(
    `${json({ role: "system", content: "You are a helpful assistant." })}, ${json({ role: "user", content: `fix ${id}` })}`,
  );
  let time = 1_700_000_000 + i * 1000;
  for (let k = 0; k < steps; k += 1) {
    const s = stepContent(p, k, steps);
    const id_ = `call_${k}`;
    const calls = s.call
      ? [{ index: 0, function: { arguments: json({ command: s.command }), name: "bash" }, id: id_, type: "function" }]
      : [];
    const response = {
      id: `r${k}`,
      created: time,
      model: "synthetic",
      object: "chat.completion",
      choices: [
        { finish_reason: s.finish, index: 0, message: { content: s.output, role: "assistant", tool_calls: calls } },
      ],
      usage: { completion_tokens: 80, prompt_tokens: 3000 + 40 * k, total_tokens: 3080 + 40 * k },
    };
    out.write(
      `, ${json({ content: s.output, role: "assistant", tool_calls: calls, function_call: null, extra: { actions: s.call ? [{ command: s.command, tool_call_id: id_ }] : [], response, cost: 0.001, timestamp: time + 1.5 } })}`,
    );
    if (s.call) {
      const observation = json(s.observation);
      out.write(
        `, {"content": ${json(`<returncode>0</returncode>\n<output>\n${s.observation}\n</output>`)}, "extra": {"raw_output": ${observation}, "returncode": 0, "timestamp": ${time + 2.1}, "exception_info": ""}, "tool_call_id": "${id_}", "role": "tool"}`,
      );
    } else {
      out.write(
        `, ${json({ role: "user", content: "Tool call error: no tool call", extra: { interrupt_type: "FormatError" } })}`,
      );
    }
    time += 3;
  }
  out.write(`], "trajectory_format": "mini-swe-agent-1.1", "instance_id": "${id}"}`);
  return out.close();
}

function writeSwe(path, i, targetBytes) {
  const p = plan(i);
  const out = writer(path);
  const steps = Math.max(8, Math.round(targetBytes / 2 / 9_000));
  const contents = [];
  for (let k = 0; k < steps; k += 1) {
    const s = stepContent(p, k, steps);
    const action =
      k === steps - 1 ? "submit" : s.command.startsWith("grep") ? `open django/db/models/mod${k % 97}.py` : s.command;
    contents.push(
      json({
        action: `${action}\n`,
        observation: s.observation,
        response: `${s.output}\n\n\`\`\`\n${action}\n\`\`\``,
        thought: s.output,
        state: '{"open_file": "n/a", "working_dir": "/django__django"}',
      }),
    );
  }
  out.write(`{"environment": "swe_main", "trajectory": [${contents.join(", ")}], "history": [`);
  // history[] repeats the exchange as chat messages: written, then skipped by the reader.
  contents.forEach((step, k) => out.write(`${k === 0 ? "" : ", "}${step}`));
  out.write(
    `], "info": ${json({ exit_status: p.limits ? "submitted (exit_cost)" : "submitted", submission: PATCH, model_stats: { instance_cost: p.limits ? 2.05 : 0.6, tokens_sent: 50_000, tokens_received: 2_000, api_calls: steps } })}}`,
  );
  return out.close();
}

function writeLoclab(path, id, i, targetBytes) {
  const p = plan(i);
  const out = writer(path);
  const steps = Math.max(8, Math.round(targetBytes / 8_000));
  out.write(
    `${json({ kind: "loclab.trajectory", schemaVersion: 1, instanceId: id, outcome: { exit: p.limits ? "step_limit" : "submitted", patch: p.limits ? null : PATCH }, limits: { steps: 250 } })}\n`,
  );
  for (let k = 0; k < steps; k += 1) {
    const s = stepContent(p, k, steps);
    const toolCalls = s.call
      ? [
          {
            name: k === steps - 1 ? "submit_patch" : "run_command",
            arguments: { command: s.command },
            observation: s.observation,
          },
        ]
      : [];
    out.write(
      `${json({ step: k, output: s.output, finishReason: s.finish, usage: { promptTokens: 3000, completionTokens: 80 }, toolCalls })}\n`,
    );
  }
  return out.close();
}

function generate(root) {
  const expected = { mini: [], swe: [], loclab: [] };
  const budget = { mini: 0.7 * TARGET, swe: 0.18 * TARGET, loclab: 0.12 * TARGET };
  const large = { mini: 3, swe: 1, loclab: 1 };
  const largeBytes = { mini: 120e6 * scale, swe: 100e6 * scale, loclab: 60e6 * scale };
  const ranges = { mini: [100e3, 1.5e6], swe: [200e3, 1e6], loclab: [100e3, 600e3] };
  let biggest = 0;
  let files = 0;
  for (const run of ["mini", "swe", "loclab"]) {
    let written = 0;
    let i = 0;
    const resolved = [];
    while (written < budget[run]) {
      const id = `${run}__task-${i}`;
      const size = i < large[run] ? largeBytes[run] : int(...ranges[run]);
      const bytes =
        run === "mini"
          ? writeMini(join(root, "mini", id, `${id}.traj.json`), id, i, size)
          : run === "swe"
            ? writeSwe(join(root, "swe", `${id}.traj`), i, size)
            : writeLoclab(join(root, "loclab", `${id}.traj.jsonl`), id, i, size);
      biggest = Math.max(biggest, bytes);
      written += bytes;
      files += 1;
      expected[run].push(plan(i));
      if (plan(i).resolved) resolved.push(id);
      i += 1;
    }
    writeFileSync(join(root, run, "synthetic.run.json"), json({ resolved_ids: resolved }));
  }
  const count = (plans, key) => plans.filter((p) => p[key]).length;
  const rows = Object.entries(expected).map(([run, plans]) => {
    const solved = count(plans, "resolved");
    const outOfBudget = plans.filter((p) => p.limits && !p.resolved).length;
    return {
      run,
      tasks: plans.length,
      solved,
      outOfBudget,
      wrongPatch: plans.length - solved - outOfBudget,
      noPatch: 0,
      // SWE-agent logs no finish_reason: its cut outputs cannot be seen.
      loopsFinishLength: run === "swe" ? 0 : count(plans, "length"),
      loopsRepeatedLine: count(plans, "repeated"),
      badPrefix: count(plans, "workspace"),
      noFile: count(plans, "noFile"),
    };
  });
  return { rows, biggest, files };
}

function analyse(root, mode) {
  // BENCH_PROFILE_DIR=DIR: a CPU profile of each analysis child, written there.
  const profile = process.env.BENCH_PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`, `--cpu-prof-name=analysis-${mode}.cpuprofile`]
    : [];
  const output = execFileSync(process.execPath, [...profile, SELF, "--analyse", root, mode], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  return JSON.parse(output);
}

function measureSet(target) {
  TARGET = target;
  scale = TARGET / 2 ** 30;
  random = seededRandom(8);
  POOL = makePool();
  const root = mkdtempSync(join(tmpdir(), "loclab-bench-trajectories-"));
  try {
    const t0 = performance.now();
    const generated = generate(root);
    const generateSeconds = (performance.now() - t0) / 1000;
    const machineAtStart = machine();
    const streamed = analyse(root, "streamed");
    const oneThread = analyse(root, "one-thread");
    const whole = process.env.BENCH_SKIP_WHOLE === "1" ? null : analyse(root, "whole");
    const parseOnly = JSON.parse(execFileSync(process.execPath, [SELF, "--parse-only", root], { encoding: "utf8" }));
    // The alternative (issue 18): Python's json.load of every file whole, parsing only.
    const python = JSON.parse(
      execFileSync(
        pythonExecutable(),
        [
          join(dirname(SELF), "lib", "python_json_load.py"),
          join(root, "mini"),
          join(root, "swe"),
          join(root, "loclab"),
        ],
        { encoding: "utf8" },
      ),
    );
    const checked = generated.rows.map((expected) => {
      const found = streamed.rows.find((row) => row.run === expected.run);
      const keys = Object.keys(expected);
      return {
        run: expected.run,
        agrees: keys.every((key) => found[key] === expected[key]),
        expected,
        found: Object.fromEntries(keys.map((key) => [key, found[key]])),
      };
    });
    return {
      set: {
        bytes: streamed.bytes,
        gib: +(streamed.bytes / 2 ** 30).toFixed(3),
        files: generated.files,
        largestFileMb: +(generated.biggest / 1e6).toFixed(1),
        generateSeconds: +generateSeconds.toFixed(1),
      },
      streamed: {
        seconds: +streamed.seconds.toFixed(2),
        mbPerSecond: +streamed.mbPerSecond.toFixed(1),
        targetMbPerSecond: 200,
        peakRssMb: +streamed.peakRssMb.toFixed(0),
        targetPeakRssMb: 200,
        threads: streamed.threads,
        perRun: streamed.perRun,
      },
      // The same reading in the main thread only, in the same run: what the threads gain.
      oneThread: {
        seconds: +oneThread.seconds.toFixed(2),
        mbPerSecond: +oneThread.mbPerSecond.toFixed(1),
        peakRssMb: +oneThread.peakRssMb.toFixed(0),
        perRun: oneThread.perRun,
        sameRows: JSON.stringify(oneThread.rows) === JSON.stringify(streamed.rows),
      },
      loclab: { mbPerSecond: +streamed.mbPerSecond.toFixed(1), peakRssMiB: +streamed.peakRssMb.toFixed(0) },
      alternative: {
        name: "Python json.load per file (parse only)",
        mbPerSecond: python.mbPerSecond,
        peakRssMiB: python.peakRssMiB,
        files: python.files,
        bytes: python.bytes,
      },
      ratio: +(streamed.mbPerSecond / python.mbPerSecond).toFixed(2),
      machine: machineAtStart,
      // V8's JSON.parse alone on the same files, as Python's side (see --parse-only).
      v8ParseOnly: {
        mbPerSecond: +parseOnly.mbPerSecond.toFixed(1),
        peakRssMiB: +parseOnly.peakRssMb.toFixed(0),
        ratioToPython: +(parseOnly.mbPerSecond / python.mbPerSecond).toFixed(2),
        files: parseOnly.files,
        bytes: parseOnly.bytes,
      },
      wholeFileJsonParse: whole && {
        seconds: +whole.seconds.toFixed(2),
        mbPerSecond: +whole.mbPerSecond.toFixed(1),
        peakRssMb: +whole.peakRssMb.toFixed(0),
      },
      plantedCountsAgree: checked.every((c) => c.agrees),
      planted: checked,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The real runs of shared/data/trajectories: `rounds` rounds of a fresh loclab child reading
 * the four (readRun) and, per run, Python's json.load of the folder's JSON files and Node's
 * JSON.parse alone on the same files; medians per run. The bytes are those Python parsed (the
 * trajectories and the label files readRun reads as well).
 */
async function measureReal(rounds = 5) {
  if (process.env.BENCH_SKIP_REAL === "1") return { skipped: "BENCH_SKIP_REAL=1" };
  const { REAL_TRAJECTORY_RUNS } = await import("@loclab/analysis");
  const { resolveDataDir } = await import("@loclab/datasets");
  let dataDir;
  try {
    dataDir = resolveDataDir();
  } catch (error) {
    return { skipped: error.message };
  }
  const machineAtStart = machine();
  const runs = REAL_TRAJECTORY_RUNS.map((spec) => ({
    ...spec,
    dir: join(dataDir, "trajectories", spec.name),
    loclab: [],
    python: [],
    parseOnly: [],
  }));
  for (let round = 0; round < rounds + 1; round += 1) {
    const loclab = JSON.parse(
      execFileSync(process.execPath, [SELF, "--real", ...runs.map((run) => `${run.format}=${run.dir}`)], {
        encoding: "utf8",
      }),
    );
    runs.forEach((run, i) => {
      const python = JSON.parse(
        execFileSync(pythonExecutable(), [join(dirname(SELF), "lib", "python_json_load.py"), run.dir], {
          encoding: "utf8",
        }),
      );
      const parseOnly = JSON.parse(
        execFileSync(process.execPath, [SELF, "--parse-only", "--folders", run.dir], { encoding: "utf8" }),
      );
      const { seconds, ...answer } = loclab[i];
      run.bytes = python.bytes;
      run.answer = answer;
      // The first round warms the page cache and is not counted.
      if (round === 0) return;
      run.loclab.push(seconds);
      run.python.push(python.seconds);
      run.parseOnly.push(parseOnly.seconds);
    });
  }
  const mb = (bytes, seconds) => +(bytes / 1e6 / seconds).toFixed(1);
  const perRun = runs.map((run) => {
    const [loclab, python, parseOnly] = [median(run.loclab), median(run.python), median(run.parseOnly)];
    return {
      run: run.name,
      format: run.format,
      bytes: run.bytes,
      ...run.answer,
      loclabMs: +(loclab * 1000).toFixed(1),
      pythonMs: +(python * 1000).toFixed(1),
      v8ParseOnlyMs: +(parseOnly * 1000).toFixed(1),
      ratio: +(python / loclab).toFixed(2),
    };
  });
  const total = (key) => perRun.reduce((sum, run) => sum + run[key], 0);
  const bytes = total("bytes");
  return {
    dataDir,
    rounds,
    bytes,
    loclab: { mbPerSecond: mb(bytes, total("loclabMs") / 1000), ms: +total("loclabMs").toFixed(1) },
    alternative: {
      name: "Python json.load per file (parse only)",
      mbPerSecond: mb(bytes, total("pythonMs") / 1000),
      ms: +total("pythonMs").toFixed(1),
    },
    v8ParseOnly: {
      mbPerSecond: mb(bytes, total("v8ParseOnlyMs") / 1000),
      ms: +total("v8ParseOnlyMs").toFixed(1),
      ratioToPython: +(total("pythonMs") / total("v8ParseOnlyMs")).toFixed(2),
    },
    ratio: +(total("pythonMs") / total("loclabMs")).toFixed(2),
    perRun,
    machine: machineAtStart,
  };
}

const sets = TARGETS.map(measureSet);
const real = await measureReal();
const result = {
  benchmark: "trajectories-streaming",
  row: "trajectory breakdown, streamed",
  goal: "at least Python's json.load (>= 200 MB/s), peak memory under 200 MB",
  node: process.version,
  machine: sets[0].machine,
  sets,
  real,
};
const out = join(dirname(SELF), "..", "results", "bench-trajectories-streaming.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${out}`);
