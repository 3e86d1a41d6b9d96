// Benchmark (issue 13, crash safety): a 40-instance × 2-seed × 2-control run (160 attempt
// keys) of the real CLI (`loclab run SPEC`, then `loclab run --resume DIR`) against two policy
// model servers (real HTTP, 60 ms per answer) in this process, the runner killed with SIGKILL at
// KILLS random moments and resumed each time, then resumed to the end. Counted from the run
// folder afterwards: keys with exactly one final record, keys lost (none), keys duplicated
// (more than one), prediction lines per cell (missing, duplicated), torn lines found and set
// aside, attempts recorded as interrupted. Goal: 0 lost, 0 duplicated. Nothing is asserted.
//
//   npm run build && node benchmarks/run-crash-safety.mjs   (KILLS=20 by default)
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark } from "@loclab/fixtures";
import { seededRandom } from "@loclab/statistics";
import { cliSession } from "./lib/cli-session.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-run-crash-safety.json");
const KILLS = Number(process.env.KILLS ?? 20);
const rng = seededRandom(Number(process.env.SEED ?? 13));

const work = mkdtempSync(join(tmpdir(), "loclab-crash-"));
const toy = await buildToyBenchmark({ dir: join(work, "toy"), repositories: 4, instancesPerRepository: 10 });
const servers = [await startPolicyModelServer({ delayMs: 60 }), await startPolicyModelServer({ delayMs: 60 })];
const dir = join(work, "run");
const specFile = join(work, "spec.json");
writeFileSync(
  specFile,
  JSON.stringify(
    {
      benchmark: toy.benchmark,
      seeds: [1, 2],
      controls: [{ kind: "plain" }, { kind: "masked" }],
      endpoints: servers.map((server) => ({ baseURL: server.url, model: "toy-policy", maxConcurrency: 3 })),
      repos: toy.mirrors,
      out: dir,
    },
    null,
    2,
  ),
);

let stderr = "";
const session = (args, killAfterMs) => cliSession(args, { killAfterMs, onStderr: (text) => (stderr += text) });

const started = performance.now();
const sessions = [];
for (let i = 0; i < KILLS; i += 1) {
  const killAfterMs = 400 + Math.round(rng.nextFloat() * 1400);
  sessions.push({
    killAfterMs,
    ...(await session(i === 0 ? ["run", specFile] : ["run", "--resume", dir], killAfterMs)),
  });
}
const last = await session(["run", "--resume", dir]);
const seconds = (performance.now() - started) / 1000;
await Promise.all(servers.map((server) => server.close()));

const records = readFileSync(join(dir, "attempts.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const final = (record) => !["infra_error", "failed"].includes(record.outcome);
const finals = new Map();
for (const record of records) if (final(record)) finals.set(record.key, (finals.get(record.key) ?? 0) + 1);
const predictionLines = {};
let missingPredictions = 0;
let duplicatedPredictions = 0;
for (const cell of manifest.cells) {
  const ids = readFileSync(join(dir, "cells", ...cell.split("/"), "predictions.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line).instanceId);
  predictionLines[cell] = ids.length;
  duplicatedPredictions += ids.length - new Set(ids).size;
  const predicted = records.filter(
    (record) =>
      final(record) &&
      record.prediction &&
      `seed-${record.seed}/${record.control.kind === "masked" ? `masked-${record.control.level}` : "plain"}` === cell,
  ).length;
  missingPredictions += Math.max(0, predicted - new Set(ids).size);
}
const tornSetAside =
  readdirSync(dir).filter((name) => name.includes(".torn-")).length +
  manifest.cells.reduce(
    (sum, cell) =>
      sum + readdirSync(join(dir, "cells", ...cell.split("/"))).filter((name) => name.includes(".torn-")).length,
    0,
  );
const result = {
  kills: sessions.filter((s) => s.signal === "SIGKILL").length,
  sessionsEndedBeforeKill: sessions.filter((s) => s.signal !== "SIGKILL").length,
  finalSessionExit: last.code,
  keys: manifest.attemptKeys,
  keysWithExactlyOneFinalRecord: [...finals.values()].filter((n) => n === 1).length,
  lost: manifest.attemptKeys - finals.size,
  duplicated: [...finals.values()].filter((n) => n > 1).length,
  attemptRecords: records.length,
  interruptedAttempts: records.filter((record) => record.error?.startsWith("interrupted")).length,
  tornLinesSetAside: tornSetAside,
  tornLineMessages: (stderr.match(/a torn last line/g) ?? []).length,
  predictionLinesMended: (stderr.match(/missing from .* appended/g) ?? []).length,
  predictionLines,
  missingPredictionLines: missingPredictions,
  duplicatedPredictionLines: duplicatedPredictions,
  seconds: +seconds.toFixed(1),
  killMoments: sessions.map((s) => s.killAfterMs),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify({ benchmark: "run-crash-safety", node: process.version, ...result }, null, 2)}\n`,
);
await toy.dispose();
rmSync(work, { recursive: true, force: true });
