// Benchmark (issue 13, faults): a run of the toy benchmark (40 instances × 2 seeds × 2 controls =
// 160 attempt keys) over 4 policy model servers (real HTTP, 40 ms per answer): one is killed once a
// quarter of the keys are done, one answers 20 % of requests with a fault (HTTP 500, 503, 429,
// a cut connection, invalid JSON), two are healthy. Counted from the ledger: keys with exactly
// one final record, faults injected against faults recorded (each retried one in an attempt's
// `retries`, the last of a failed call as its `infra_error`), requests whose body carries fault
// text (the model never sees one), the killed server's keys and where they went, attempts per
// endpoint. Nothing is asserted.
//
//   npm run build && node benchmarks/run-faults.mjs
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark } from "@loclab/fixtures";
import { parseRunSpec, startRun } from "@loclab/runner";

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-run-faults.json");
const work = mkdtempSync(join(tmpdir(), "loclab-faults-"));
const toy = await buildToyBenchmark({ dir: join(work, "toy"), repositories: 4, instancesPerRepository: 10 });
const flaky = await startPolicyModelServer({ delayMs: 40, faultRate: 0.2, faultSeed: 11 });
const doomed = await startPolicyModelServer({ delayMs: 40 });
const healthy = [await startPolicyModelServer({ delayMs: 40 }), await startPolicyModelServer({ delayMs: 40 })];
const all = [flaky, doomed, ...healthy];
const names = new Map([
  [flaky.url, "flaky (20 % faults)"],
  [doomed.url, "killed mid-run"],
  [healthy[0].url, "healthy A"],
  [healthy[1].url, "healthy B"],
]);
const spec = parseRunSpec({
  benchmark: toy.benchmark,
  seeds: [1, 2],
  controls: [{ kind: "plain" }, { kind: "masked" }],
  endpoints: all.map((server) => ({ baseURL: server.url, model: "toy-policy", maxConcurrency: 4 })),
  repos: toy.mirrors,
  out: join(work, "run"),
  retry: { backoffSeconds: 0.05, probeSeconds: 0.5, healthSeconds: 1 },
});
let done = 0;
let killedAt;
const events = { down: [], up: [] };
const started = performance.now();
const summary = await startRun(spec, {
  onEvent: (event) => {
    if (event.type === "attempt-end" && !event.requeued && ++done === 40 && killedAt === undefined) {
      killedAt = done;
      void doomed.close();
    }
    if (event.type === "endpoint-down") events.down.push(`${names.get(event.baseURL)}: ${event.reason}`);
    if (event.type === "endpoint-up") events.up.push(names.get(event.baseURL));
  },
});
const seconds = (performance.now() - started) / 1000;
const records = readFileSync(join(spec.out, "attempts.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const final = (record) => !["infra_error", "failed"].includes(record.outcome);
const finals = new Map();
for (const record of records) if (final(record)) finals.set(record.key, (finals.get(record.key) ?? 0) + 1);
const injected = [...flaky.faults.values()].reduce((sum, n) => sum + n, 0);
const onFlaky = records.filter((record) => record.endpoint?.baseURL === flaky.url);
const recorded =
  onFlaky.reduce((sum, record) => sum + record.retries.length, 0) +
  onFlaky.filter((record) => record.outcome === "infra_error").length;
const faultText = all
  .flatMap((server) => server.requests)
  .filter((request) => /scripted fault|chatcmpl-broken|Unexpected end of JSON/.test(request.raw)).length;
const doomedKeys = new Set(
  records
    .filter((record) => record.endpoint?.baseURL === doomed.url && record.outcome === "infra_error")
    .map((record) => record.key),
);
const movedTo = {};
for (const key of doomedKeys) {
  const closing = records.find((record) => record.key === key && final(record));
  const where = closing ? names.get(closing.endpoint.baseURL) : "none";
  movedTo[where] = (movedTo[where] ?? 0) + 1;
}
const perEndpoint = {};
for (const record of records) {
  const name = names.get(record.endpoint?.baseURL) ?? "none";
  perEndpoint[name] ??= { attempts: 0, final: 0, infraErrors: 0, retries: 0 };
  perEndpoint[name].attempts += 1;
  if (final(record)) perEndpoint[name].final += 1;
  if (record.outcome === "infra_error") perEndpoint[name].infraErrors += 1;
  perEndpoint[name].retries += record.retries.length;
}
const result = {
  keys: summary.keys,
  complete: summary.complete,
  keysWithExactlyOneFinalRecord: [...finals.values()].filter((n) => n === 1).length,
  lost: summary.keys - finals.size,
  duplicated: [...finals.values()].filter((n) => n > 1).length,
  faultsInjected: Object.fromEntries(flaky.faults),
  faultsInjectedTotal: injected,
  faultsRecorded: recorded,
  requestsCarryingFaultText: faultText,
  killedAfterKeysDone: killedAt,
  killedEndpointInfraErrors: doomedKeys.size,
  killedEndpointKeysClosedOn: movedTo,
  endpointDownEvents: events.down,
  endpointUpEvents: events.up,
  perEndpoint,
  seconds: +seconds.toFixed(2),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify({ benchmark: "run-faults", node: process.version, ...result }, null, 2)}\n`);
await Promise.all([flaky.close(), ...healthy.map((server) => server.close())]);
await toy.dispose();
rmSync(work, { recursive: true, force: true });
