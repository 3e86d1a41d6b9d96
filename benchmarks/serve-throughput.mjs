// Benchmark (issue 14): the test model (SmolLM2-135M-Instruct Q4_1) through `loclab serve` on
// this machine's CPU. Prompt tokens/s (completions, max_tokens 1, a ≈ 1,000-token prompt),
// generated tokens/s (128 tokens, ignore_eos), with one and with four requests at once
// (--parallel 1 and 4), echo log-probabilities per prompt token (what FGL scoring pays), and
// the obvious alternative in the same run: node-llama-cpp called in-process, no HTTP. Medians
// of REPEAT (default 3). Nothing is asserted.
//
//   npm run build && node benchmarks/serve-throughput.mjs
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureTestModel, startModelServer } from "@loclab/serve";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-serve-throughput.json");
const REPEAT = Number(process.env.REPEAT ?? 3);
const { path: modelPath } = await ensureTestModel();
const PROMPT =
  "def parse(text):\n    '''Parse a date in ISO 8601 form and return a datetime.'''\n    return datetime.strptime(text, '%Y-%m-%d')\n\n".repeat(
    30,
  );
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = {};

async function post(server, body) {
  const response = await fetch(`${server.baseURL}/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: server.modelName, ...body }),
  });
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return response.json();
}

for (const parallel of [1, 4]) {
  const server = await startModelServer({ modelPath, port: 0, parallel, contextSize: 2048, prefixCaching: false });
  const prefill = [];
  const decode = [];
  for (let i = 0; i < REPEAT; i++) {
    let started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: parallel }, (_, k) =>
        post(server, { prompt: `${k}${PROMPT}`, max_tokens: 1, temperature: 0 }),
      ),
    );
    prefill.push(answers.reduce((sum, a) => sum + a.usage.prompt_tokens, 0) / ((performance.now() - started) / 1000));
    started = performance.now();
    const generated = await Promise.all(
      Array.from({ length: parallel }, (_, k) =>
        post(server, { prompt: `Story ${k}:`, max_tokens: 128, temperature: 0.8, seed: k, ignore_eos: true }),
      ),
    );
    decode.push(
      generated.reduce((sum, a) => sum + a.usage.completion_tokens, 0) / ((performance.now() - started) / 1000),
    );
  }
  results[`parallel${parallel}`] = {
    requests: parallel,
    promptTokensPerSecond: median(prefill),
    generatedTokensPerSecond: median(decode),
  };
  if (parallel === 1) {
    const echo = [];
    for (let i = 0; i < REPEAT; i++) {
      const started = performance.now();
      const answer = await post(server, { prompt: PROMPT.slice(0, 800), max_tokens: 0, echo: true, logprobs: 1 });
      echo.push(answer.usage.prompt_tokens / ((performance.now() - started) / 1000));
    }
    results.echoLogprobsTokensPerSecond = median(echo);
  }
  await server.close();
}

// The alternative: node-llama-cpp in-process, same threads, same prompt, no HTTP.
const llama = await getLlama({ gpu: false, build: "never", maxThreads: 2, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: 2048, threads: 2, batchSize: 512 });
const sequence = context.getSequence();
const direct = { prefill: [], decode: [] };
for (let i = 0; i < REPEAT; i++) {
  await sequence.clearHistory();
  const tokens = model.tokenize(`0${PROMPT}`, true);
  let started = performance.now();
  await sequence.evaluateWithoutGeneratingNewTokens(tokens);
  direct.prefill.push(tokens.length / ((performance.now() - started) / 1000));
  await sequence.clearHistory();
  started = performance.now();
  let n = 0;
  for await (const token of sequence.evaluate(model.tokenize("Story 0:", true), {
    temperature: 0.8,
    seed: 0,
    yieldEogToken: true,
  })) {
    void token;
    if (++n >= 128) break;
  }
  direct.decode.push(n / ((performance.now() - started) / 1000));
}
results.inProcess = { promptTokensPerSecond: median(direct.prefill), generatedTokensPerSecond: median(direct.decode) };
await context.dispose();
await model.dispose();
await llama.dispose();
results.serverOverPlain = {
  prompt: results.parallel1.promptTokensPerSecond / results.inProcess.promptTokensPerSecond,
  generated: results.parallel1.generatedTokensPerSecond / results.inProcess.generatedTokensPerSecond,
};
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify({ repeat: REPEAT, results }, null, 2)}\n`);
const f = (x) => x.toFixed(1);
process.stdout.write(
  `loclab serve, SmolLM2-135M-Instruct Q4_1, 2 threads (medians of ${REPEAT})\n` +
    `  1 request:  prompt ${f(results.parallel1.promptTokensPerSecond)} tok/s, generated ${f(results.parallel1.generatedTokensPerSecond)} tok/s\n` +
    `  4 at once (--parallel 4): prompt ${f(results.parallel4.promptTokensPerSecond)} tok/s, generated ${f(results.parallel4.generatedTokensPerSecond)} tok/s in all\n` +
    `  echo logprobs: ${f(results.echoLogprobsTokensPerSecond)} prompt tok/s (a full-vocabulary distribution per position)\n` +
    `  in-process node-llama-cpp: prompt ${f(results.inProcess.promptTokensPerSecond)} tok/s, generated ${f(results.inProcess.generatedTokensPerSecond)} tok/s; server/in-process ${f(results.serverOverPlain.prompt)}× / ${f(results.serverOverPlain.generated)}×\n` +
    `wrote ${outFile}\n`,
);
