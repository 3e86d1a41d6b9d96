// Benchmark: @loclab/statistics through its public API (built dist).
//   1. exactMcNemar at b + c = 10^7 (median of several calls; target under 50 ms), for p near
//      1e-3, ~0.5 and ~1e-300, against the obvious alternative: the p-value summed term by
//      term in linear space with simple-statistics' Lanczos gammaln (also its accuracy).
//   2. The full pairwise comparison of the 42 systems × 300 instances Lite resolved matrix
//      (861 pairs): parse the CSV, per pair pairedTable + exactMcNemar, Holm over the 861
//      p-values, Wilson interval and clustered SE (clusters = repositories) per system.
//      Target under 200 ms. The same pipeline with the naive McNemar is timed for the ratio,
//      and the 861 McNemar tests alone (discordant counts ≤ 300 here, where naive is cheap).
//      `compareCommandMedianMs` is what `loclab compare --holm` runs (parse + compareSystems,
//      which counts discordant pairs on the 0/1 columns directly instead of id-keyed maps).
// Figures are printed and written to results/bench-statistics.json; nothing is asserted.
//
//   npm run bench            (from the repository root; builds first)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveDataDir } from "@loclab/datasets";
import {
  clusterOfInstanceId,
  clusteredStandardError,
  compareSystems,
  exactMcNemar,
  holmAdjust,
  pairedTable,
  parseResolvedMatrix,
  wilsonInterval,
} from "@loclab/statistics";
import { gammaln } from "simple-statistics";

const CALLS = Number(process.env.BENCH_CALLS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function timeCalls(fn, calls, warmup = 3) {
  for (let i = 0; i < warmup; i += 1) fn();
  const times = [];
  let result;
  for (let i = 0; i < calls; i += 1) {
    const start = performance.now();
    result = fn();
    times.push(performance.now() - start);
  }
  return { medianMs: +median(times).toFixed(3), minMs: +Math.min(...times).toFixed(3), result };
}

// The obvious alternative: P(X ≤ m) = Σ_{k ≤ m} exp(lnΓ(n+1) − lnΓ(k+1) − lnΓ(n−k+1) − n·ln 2),
// every term from simple-statistics' Lanczos log-gamma, summed in linear space.
function naiveMcNemar(b, c) {
  const n = b + c;
  if (n === 0 || b === c) return 1;
  const m = Math.min(b, c);
  const lnNFact = gammaln(n + 1);
  let sum = 0;
  for (let k = 0; k <= m; k += 1) sum += Math.exp(lnNFact - gammaln(k + 1) - gammaln(n - k + 1) - n * Math.LN2);
  return Math.min(1, 2 * sum);
}

// 1. b + c = 10^7. Reference p-values from packages/statistics/fixtures/scipy-reference.json
// (scipy 1.17 binom.cdf; mpmath where present), for the accuracy columns.
const fixture = JSON.parse(
  readFileSync(new URL("../packages/statistics/fixtures/scipy-reference.json", import.meta.url), "utf8"),
);
const large = [
  { label: "p≈1e-3", b: 4_994_796, c: 5_005_204 },
  { label: "p≈0.5", b: 4_998_935, c: 5_001_065 },
  { label: "p≈1e-300", b: 4_941_394, c: 5_058_606 },
].map((row) => {
  const reference = fixture.mcnemar.find((r) => r.b === row.b && r.c === row.c);
  const ours = timeCalls(() => exactMcNemar({ b: row.b, c: row.c }), CALLS);
  const naive = timeCalls(() => naiveMcNemar(row.b, row.c), 3, 1);
  const exact = reference.pMp ?? reference.p;
  return {
    case: row.label,
    b: row.b,
    c: row.c,
    p: ours.result.p,
    loclabMedianMs: ours.medianMs,
    naiveLanczosMedianMs: naive.medianMs,
    speedup: +(naive.medianMs / ours.medianMs).toFixed(0),
    relativeErrorLoclab: Math.abs(ours.result.p - exact) / exact,
    relativeErrorNaive: Math.abs(naive.result - exact) / exact,
  };
});

// 2. The Lite pairwise comparison.
const litePath = join(resolveDataDir(), "resolved", "lite.csv");
const liteText = readFileSync(litePath, "utf8");

function pairwise(mcnemar) {
  const matrix = parseResolvedMatrix(liteText, { source: "lite.csv" });
  const { instanceIds, systems, outcomes } = matrix;
  const maps = outcomes.map((column) => new Map(instanceIds.map((id, i) => [id, column[i]])));
  const clusters = instanceIds.map(clusterOfInstanceId);
  const perSystem = systems.map((system, s) => {
    const solved = outcomes[s].reduce((sum, x) => sum + x, 0);
    return {
      system,
      solved,
      wilson: wilsonInterval({ successes: solved, n: instanceIds.length }),
      clustered: clusteredStandardError({ values: outcomes[s], clusters }),
    };
  });
  const pairs = [];
  for (let i = 0; i < systems.length; i += 1) {
    for (let j = i + 1; j < systems.length; j += 1) {
      const table = pairedTable({ a: maps[i], b: maps[j] });
      pairs.push({
        a: systems[i],
        b: systems[j],
        aOnly: table.aOnly,
        bOnly: table.bOnly,
        p: mcnemar(table.aOnly, table.bOnly),
      });
    }
  }
  const adjusted = holmAdjust(pairs.map((pair) => pair.p));
  pairs.forEach((pair, k) => {
    pair.holm = adjusted[k];
  });
  return { perSystem, pairs };
}

// What `loclab compare --holm` runs: parse, then compareSystems over the columns directly.
const compareCommand = timeCalls(
  () => compareSystems(parseResolvedMatrix(liteText, { source: "lite.csv" }), { holm: true }),
  ROUNDS,
);
const parseOnly = timeCalls(() => parseResolvedMatrix(liteText, { source: "lite.csv" }), ROUNDS);
const loclabPipeline = timeCalls(() => pairwise((b, c) => exactMcNemar({ b, c }).p), ROUNDS);
const naivePipeline = timeCalls(() => pairwise(naiveMcNemar), ROUNDS);
const { perSystem, pairs } = loclabPipeline.result;
// The 861 McNemar tests alone (b, c from the tables above), loclab vs naive.
const mcnemarOnly = timeCalls(() => pairs.map((pair) => exactMcNemar({ b: pair.aOnly, c: pair.bOnly }).p), ROUNDS);
const naiveOnly = timeCalls(() => pairs.map((pair) => naiveMcNemar(pair.aOnly, pair.bOnly)), ROUNDS);
const maxPairDifference = Math.max(
  ...pairs.map((pair, k) => Math.abs(pair.p - naivePipeline.result.pairs[k].p) / pair.p),
);
const best = [...perSystem].sort((x, y) => y.solved - x.solved)[0];

const result = {
  benchmark: "statistics",
  node: process.version,
  exactMcNemarAt1e7: { callsPerCase: CALLS, targetMs: 50, cases: large },
  litePairwise: {
    file: "resolved/lite.csv",
    systems: perSystem.length,
    instances: perSystem[0].clustered.n,
    repositories: perSystem[0].clustered.clusterCount,
    pairs: pairs.length,
    rounds: ROUNDS,
    parseMedianMs: parseOnly.medianMs,
    compareCommandMedianMs: compareCommand.medianMs,
    endToEndMedianMs: loclabPipeline.medianMs,
    targetMs: 200,
    naiveMcNemarPipelineMedianMs: naivePipeline.medianMs,
    ratio: +(naivePipeline.medianMs / loclabPipeline.medianMs).toFixed(2),
    maxRelativeDifferenceToNaive: maxPairDifference,
    mcnemar861Only: {
      loclabMedianMs: mcnemarOnly.medianMs,
      naiveMedianMs: naiveOnly.medianMs,
      ratio: +(naiveOnly.medianMs / mcnemarOnly.medianMs).toFixed(2),
    },
    pairsSignificantRaw: pairs.filter((pair) => pair.p < 0.05).length,
    pairsSignificantHolm: pairs.filter((pair) => pair.holm < 0.05).length,
    mostSolved: {
      system: best.system,
      solved: best.solved,
      wilson: best.wilson,
      clusteredSE: best.clustered.standardError,
    },
  },
};
const out = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "bench-statistics.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${out}`);
