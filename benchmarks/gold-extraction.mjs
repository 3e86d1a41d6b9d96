// Benchmark: gold extraction over all 1,360 gold patches of Lite, Verified and Loc-Bench.
// Compares loclab's parser and its full `extractGold` (parse + spans + hunks + added lines +
// symbols) with the obvious alternative, jsdiff's `parsePatch`, in the same process and run.
// Figures are printed and written to results/bench-gold-extraction.json; nothing is asserted.
//
//   npm run bench            (from the repository root; builds first)
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBenchmark } from "@loclab/datasets";
import { extractGold, parsePatch } from "@loclab/gold";
import { parsePatch as jsdiffParsePatch } from "diff";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const WARMUP = 5;

const loadStart = performance.now();
const benchmarks = await Promise.all(["lite", "verified", "locbench"].map((name) => loadBenchmark(name)));
const loadMs = performance.now() - loadStart;
const instances = benchmarks.flatMap((benchmark) => benchmark.instances);
const patchBytes = instances.reduce((sum, row) => sum + Buffer.byteLength(row.patch), 0);

function timeRounds(fn) {
  for (let i = 0; i < WARMUP; i += 1) fn();
  const times = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)], minMs: times[0], maxMs: times.at(-1) };
}

let failures = 0;
const loclab = timeRounds(() => {
  failures = extractGold(instances).failures.length;
});
const loclabParse = timeRounds(() => {
  for (const row of instances) parsePatch(row.patch);
});
const jsdiff = timeRounds(() => {
  for (const row of instances) jsdiffParsePatch(row.patch);
});

const result = {
  benchmark: "gold-extraction",
  node: process.version,
  patches: instances.length,
  patchMegabytes: +(patchBytes / 1e6).toFixed(2),
  failures,
  rounds: ROUNDS,
  loadThreeBenchmarksMs: +loadMs.toFixed(1),
  loclabExtractGold: {
    ...round(loclab),
    perPatchMicroseconds: +((loclab.medianMs * 1000) / instances.length).toFixed(1),
  },
  loclabParsePatchOnly: {
    ...round(loclabParse),
    perPatchMicroseconds: +((loclabParse.medianMs * 1000) / instances.length).toFixed(1),
  },
  jsdiffParsePatch: {
    ...round(jsdiff),
    perPatchMicroseconds: +((jsdiff.medianMs * 1000) / instances.length).toFixed(1),
  },
  // Same work (parse only): loclab's parser against jsdiff's.
  ratioParseOnlyLoclabOverJsdiff: +(loclabParse.medianMs / jsdiff.medianMs).toFixed(2),
  // Full gold extraction (parse + spans, hunks, added lines, symbols) against jsdiff's parse.
  ratioExtractGoldOverJsdiffParse: +(loclab.medianMs / jsdiff.medianMs).toFixed(2),
};

function round(times) {
  return Object.fromEntries(Object.entries(times).map(([key, value]) => [key, +value.toFixed(2)]));
}

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "bench-gold-extraction.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${out}`);
