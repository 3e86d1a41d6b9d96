// FGL scoring throughput (issue 16, evidence): candidates of the calc fixture (a real git
// checkout) scored by the test model through `loclab serve`'s server, against the obvious
// alternative in the same run: the same final prompts sent straight to /v1/completions with
// echo + logprobs (what the server has to do anyway). Prints candidates/s, prompt tokens/s, the
// share of wall time outside completions requests, and the ratio loclab / raw.
//
//   node benchmarks/fgl-scoring.mjs [--candidates 8] [--threads 2]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkoutCode, echoPrompt, fixerPrompt, renderContext, countTokens, scoreCandidates } from "@loclab/fgl";
import { buildCalcFixture, CALC_FILES } from "@loclab/fixtures";
import { ensureTestModel, startModelServer } from "@loclab/serve";
import { materializeWorkspace } from "@loclab/tools";

const arg = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const count = arg("--candidates", 8);
const threads = arg("--threads", 2);
const dir = await mkdtemp(join(tmpdir(), "loclab-fgl-bench-"));
const fixture = await buildCalcFixture({ dir: join(dir, "calc") });
const code = checkoutCode(
  await materializeWorkspace({ instance: fixture.row, mirrors: fixture.mirrors, cacheDir: join(dir, "cache") }),
);
const model = await ensureTestModel();
const server = await startModelServer({ modelPath: model.path, port: 0, parallel: 1, threads, contextSize: 2048 });
const endpoint = { baseURL: server.baseURL, model: server.modelName };

// Candidates: windows of calc's files, each different (no two alike, so nothing is de-duplicated).
const files = Object.keys(CALC_FILES).filter((path) => path.endsWith(".py"));
const candidates = Array.from({ length: count }, (_, i) => {
  const path = files[i % files.length];
  const lines = CALC_FILES[path].split("\n").length - 1;
  return {
    task: fixture.row.instance_id,
    id: `c${i}`,
    kind: "sample",
    teacher: i === 0,
    locations: [
      { path, startLine: 1 + Math.floor(i / files.length), endLine: lines, role: "read" },
      { path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit" },
    ],
    provenance: { source: "bench" },
  };
});
const task = {
  task: fixture.row.instance_id,
  repo: fixture.row.repo,
  issue: fixture.row.problem_statement,
  patch: fixture.patch,
  candidates,
  code,
};

const started = performance.now();
const summary = await scoreCandidates({ tasks: [task], endpoints: [endpoint], out: join(dir, "scores.jsonl") });
const loclabSeconds = (performance.now() - started) / 1000;

// The alternative: the same prompts, built beforehand, sent straight.
const prompts = [];
for (const candidate of candidates) {
  const context = await renderContext(candidate.locations, code, {
    countTokens: (text) => countTokens(endpoint, text),
  });
  prompts.push(fixerPrompt({ repo: task.repo, issue: task.issue, context: context.text, patch: task.patch }).text);
}
const rawStarted = performance.now();
for (const prompt of prompts) await echoPrompt(endpoint, prompt);
const rawSeconds = (performance.now() - rawStarted) / 1000;

const resumeStarted = performance.now();
const resumed = await scoreCandidates({ tasks: [task], endpoints: [endpoint], out: join(dir, "scores.jsonl") });
const resumeSeconds = (performance.now() - resumeStarted) / 1000;
await server.close();
await rm(dir, { recursive: true, force: true });

console.log(`|work|candidates|seconds|candidates/s|prompt tokens/s|outside completions requests|`);
console.log(
  `|loclab scoreCandidates|${summary.scored}|${loclabSeconds.toFixed(2)}|${(summary.scored / loclabSeconds).toFixed(3)}|${(summary.promptTokens / loclabSeconds).toFixed(1)}|${(100 * (1 - summary.requestSeconds / loclabSeconds)).toFixed(1)} % (/tokenize ${summary.tokenizeSeconds.toFixed(2)} s)|`,
);
console.log(
  `|raw echo requests, same prompts|${prompts.length}|${rawSeconds.toFixed(2)}|${(prompts.length / rawSeconds).toFixed(3)}|${(summary.promptTokens / rawSeconds).toFixed(1)}|–|`,
);
console.log(`|resume (all in the scores file)|${resumed.skipped} skipped|${resumeSeconds.toFixed(2)}|–|–|–|`);
console.log(
  `\nratio loclab / raw: ${(loclabSeconds / rawSeconds).toFixed(3)}× (${summary.promptTokens} prompt tokens, mean ${(summary.promptTokens / summary.scored).toFixed(0)} per candidate, test model on ${threads} threads)`,
);
process.exit(0);
