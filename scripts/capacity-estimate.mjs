// A capacity estimate for SHERLOC's full transfer study on 4×L4 nodes (docs/guide/distributed-runs.md):
// how long the repair attempts take with M GPU nodes and W worker machines, and which one is the
// bottleneck. Measured inputs:
//   - per repair task: model calls and generated tokens of a real repair agent (mini-swe-agent
//     on deepseek-chat, 41 SWE-bench Lite tasks, ../shared/data/trajectories, read with
//     @loclab/analysis's readRun); medians;
//   - the sandbox's cost per command (benchmarks/fixer-exec.mjs: 83 ms through the engine) and
//     the queue's per job (benchmarks/distributed-queue.mjs: results/bench-distributed-queue.json
//     when it is there);
// public: about 50 generated tokens/s per task with 4 tasks in parallel on one 4×L4 node, tensor
// parallel 4 (FGL's setting, ../shared/docs/domain.md). Assumed (flags): each command's own time,
// the evaluation's time per patch, and the cores a worker gives each attempt.
//
//   node scripts/capacity-estimate.mjs [--command-seconds 1] [--evaluation-seconds 120] [--worker-cores 16]
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "./lib/run.mjs";

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const commandSeconds = flag("--command-seconds", 1);
const evaluationSeconds = flag("--evaluation-seconds", 120);
const workerCores = flag("--worker-cores", 16);
const { resolveDataDir } = await import(pathToFileURL(join(repoRoot, "packages", "datasets", "dist", "index.js")).href);
const { readRun } = await import(pathToFileURL(join(repoRoot, "packages", "analysis", "dist", "index.js")).href);

const median = (values) => {
  const sorted = values.filter((value) => value !== null && value !== undefined).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const dir = join(resolveDataDir(), "trajectories", "mini-swe-agent_deepseek-chat_lite");
const run = await readRun({ name: "mini-swe-agent deepseek-chat", format: "mini-swe-agent", dir });
const calls = median(run.summaries.map((summary) => summary.apiCalls));
const generated = median(run.summaries.map((summary) => summary.completionTokens));
const queueFile = join(repoRoot, "results", "bench-distributed-queue.json");
// At least 1 ms: the measured overhead is within the run-to-run noise of a 30 ms attempt.
const queuePerJobMs = Math.max(
  1,
  existsSync(queueFile) ? (JSON.parse(readFileSync(queueFile, "utf8")).overhead?.perJobMs ?? 1) : 1,
);

// The study: 800 tasks (Lite 300 + Verified 500) × 5 backbones × 2 frameworks × 2 arms (baseline, judged).
const attempts = 800 * 5 * 2 * 2;
const tokensPerSecond = 50; // per task, 4 tasks on a 4×L4 node (FGL)
const slotsPerNode = 4;
const modelSeconds = generated / tokensPerSecond;
const toolSeconds = calls * (commandSeconds + 0.083);
// A GPU slot is held for all of an attempt's turns (the lease: prefix caching), its tool time too.
const attemptSeconds = modelSeconds + toolSeconds;
// A worker's core is held by the sandbox for the attempt and by the evaluation after it.
const workerSecondsPerAttempt = attemptSeconds + evaluationSeconds;

console.log(
  `measured: ${run.summaries.length} tasks, median ${calls} model calls and ${generated} generated tokens per task; queue ${queuePerJobMs} ms per job`,
);
console.log(
  `per attempt: ${Math.round(modelSeconds)} s generating at ${tokensPerSecond} tok/s + ${Math.round(toolSeconds)} s of commands = ${Math.round(attemptSeconds)} s on a GPU slot; ${Math.round(workerSecondsPerAttempt)} s of a worker core with the evaluation`,
);
console.log(`study: ${attempts} repair attempts\n`);
console.log("| GPU nodes (4×L4) | worker machines (16 cores) | attempts in flight | bottleneck | days |");
console.log("|---|---|---|---|---|");
for (const nodes of [1, 2, 4, 8]) {
  for (const workers of [1, 2, 4]) {
    const gpuRate = (nodes * slotsPerNode) / attemptSeconds; // attempts per second
    const workerRate = (workers * workerCores) / workerSecondsPerAttempt;
    const queueRate = 1000 / queuePerJobMs;
    const rate = Math.min(gpuRate, workerRate, queueRate);
    const bottleneck = rate === gpuRate ? "GPUs" : rate === workerRate ? "workers" : "queue";
    const inFlight = Math.min(nodes * slotsPerNode, workers * workerCores);
    console.log(`| ${nodes} | ${workers} | ${inFlight} | ${bottleneck} | ${(attempts / rate / 86400).toFixed(1)} |`);
  }
}
