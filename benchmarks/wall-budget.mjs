// Benchmark (issue "First real use", item 6): the wall budget against a server that answers only
// after 30 s. One attempt of the toy benchmark with `budgets.instance.wallSeconds: 10` against
// the scripted model server over real HTTP, whose first answer is delayed 30 s. Reported: the
// attempt's exit and wall time from the ledger, the runner's own elapsed time, and whether the
// server saw its client go before it answered. The same with 5 s, 10 s and 20 s budgets, to show
// the overrun does not grow with the budget. Nothing is asserted.
//
//   npm run build && node benchmarks/wall-budget.mjs
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModelServer } from "@loclab/agent";
import { buildToyBenchmark } from "@loclab/fixtures";
import { parseRunSpec, startRun } from "@loclab/runner";
import { runLayout } from "@loclab/schemas";

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-wall-budget.json");
const work = mkdtempSync(join(tmpdir(), "loclab-wall-"));
const toy = await buildToyBenchmark({ dir: join(work, "toy"), repositories: 2, instancesPerRepository: 1 });
const rows = [];
try {
  for (const wallSeconds of [5, 10, 20]) {
    const server = await startScriptedModelServer({
      models: ["slow"],
      script: [{ fault: "delay", ms: 30_000, then: { content: "late" } }],
    });
    try {
      const spec = parseRunSpec({
        benchmark: toy.benchmark,
        instances: [toy.rows[0].instance_id],
        endpoints: [{ baseURL: server.url, model: "slow" }],
        budgets: { instance: { wallSeconds } },
        repos: toy.mirrors,
        out: join(work, `run-${wallSeconds}`),
        retry: { requestRetries: 0 },
      });
      const started = performance.now();
      await startRun(spec);
      const elapsedMs = performance.now() - started;
      const [record] = readFileSync(runLayout.ledger(spec.out), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      const chat = server.requests.find((request) => request.path.endsWith("/chat/completions"));
      rows.push({
        wallSeconds,
        serverDelaySeconds: 30,
        outcome: record.outcome,
        exit: record.exit,
        attemptSeconds: +(record.wallMs / 1000).toFixed(2),
        runSeconds: +(elapsedMs / 1000).toFixed(2),
        serverSawClientGo: chat?.clientClosed === true,
      });
    } finally {
      await server.close();
    }
  }
} finally {
  await toy.dispose?.();
  rmSync(work, { recursive: true, force: true });
}
console.table(rows);
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`,
);
console.log(`wrote ${outFile}`);
