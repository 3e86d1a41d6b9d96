// Benchmark: @loclab/tools (issue 6) through its public API (built dist), on Debian's installed
// trees (python3-django, python3-sympy; ripgrep from Debian or @vscode/ripgrep):
//   1. search_code in a warm workspace against spawning `rg -F --no-ignore -n` per query, on
//      the django tree, for the 72 frozen queries of packages/tools/test/fixtures/django-queries.json
//      (each query run ROUNDS times, interleaved; per-query medians; then the median over queries).
//      Both sides produce every hit (ours with no cap; rg's output read and split into lines).
//      Target: search at least as fast as spawning ripgrep (the ratio is rg / ours).
//   2. The import graph's build time and memory for django and sympy, each in a fresh Node
//      process (file listing, reading, wasm grammar load, tree-sitter parse, resolution: a cold
//      first build). Memory: peak RSS of the process, and the heap the graph keeps once the
//      workspace's file contents are dropped. Target: django under 2 s.
//   3. connected_tree on the built graph (depth 1 and 2, both directions) for every 10th
//      Python file of django (median of 5 calls per file; then the median and the largest
//      over files). Target: under 5 ms per query.
//   Memory: the graph's heap is the heap growth from before the build to after it, once the
//   workspace's file contents are dropped (garbage collected).
// Figures are printed and written to results/bench-tools.json; nothing is asserted.
//
//   npm run bench            (from the repository root; builds first)
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectedTree, openWorkspace, searchCode } from "@loclab/tools";

const DJANGO = "/usr/lib/python3/dist-packages/django";
const SYMPY = "/usr/lib/python3/dist-packages/sympy";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const GRAPH_RUNS = Number(process.env.BENCH_GRAPH_RUNS ?? 3);
const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, "..", "results", "bench-tools.json");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round = (value, digits = 3) => (value === null || value === undefined ? null : +value.toFixed(digits));

// Child mode: build one tree's import graph in this fresh process and report on stdout.
if (process.argv[2] === "--graph") {
  const root = process.argv[3];
  globalThis.gc?.();
  const heapBeforeMB = process.memoryUsage().heapUsed / 2 ** 20;
  const started = performance.now();
  const workspace = await openWorkspace({ root });
  const graph = await workspace.importGraph();
  const buildMs = performance.now() - started;
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  const cachedContentMB = workspace.stats().cachedBytes / 2 ** 20;
  workspace.dispose();
  globalThis.gc?.();
  const heapGraphMB = process.memoryUsage().heapUsed / 2 ** 20 - heapBeforeMB;
  let queries = null;
  if (process.argv[4] === "--queries") {
    const pythonFiles = graph.files.filter((path) => path.endsWith(".py"));
    const sample = pythonFiles.filter((_, i) => i % 10 === 0);
    const view = await openWorkspace({ root });
    await view.importGraph();
    const times = { 1: [], 2: [] };
    for (const depth of [1, 2]) {
      for (const path of sample) await connectedTree(view, { path, depth }); // warm-up
      for (const path of sample) {
        const repeats = [];
        for (let k = 0; k < 5; k += 1) {
          const t = performance.now();
          await connectedTree(view, { path, depth });
          repeats.push(performance.now() - t);
        }
        times[depth].push(median(repeats));
      }
    }
    queries = {
      files: sample.length,
      depth1MedianMs: round(median(times[1]), 4),
      depth1MaxMs: round(Math.max(...times[1]), 4),
      depth2MedianMs: round(median(times[2]), 4),
      depth2MaxMs: round(Math.max(...times[2]), 4),
    };
  }
  process.stdout.write(
    `${JSON.stringify({ buildMs, peakRssMB, heapGraphMB, cachedContentMB, parsedFiles: graph.stats.parsedFiles, edges: graph.stats.edges, filesWithErrors: graph.stats.filesWithErrors.length, queries })}\n`,
  );
  process.exit(0);
}

async function findRipgrep() {
  for (const candidate of ["/usr/bin/rg", "/usr/local/bin/rg"]) if (existsSync(candidate)) return candidate;
  try {
    const { rgPath } = await import("@vscode/ripgrep");
    if (existsSync(rgPath)) return rgPath;
  } catch {
    // not installed
  }
  return undefined;
}

/** One `rg -F` spawn as a tool would run it: start, read all output, split it into hits. */
function spawnRipgrep(rg, root, query) {
  return new Promise((resolve, reject) => {
    execFile(
      rg,
      ["-F", "--no-ignore", "-n", "--no-config", "--no-heading", "--color", "never", "--", query, "./"],
      { cwd: root, maxBuffer: 1 << 30, encoding: "buffer" },
      (error, stdout) => {
        if (error && error.code !== 1) reject(error);
        else resolve(stdout.length === 0 ? 0 : stdout.toString("utf8").split("\n").length - 1);
      },
    );
  });
}

const missing = [];
if (!existsSync(join(DJANGO, "__init__.py"))) missing.push("python3-django");
if (!existsSync(join(SYMPY, "__init__.py"))) missing.push("python3-sympy");
const rg = await findRipgrep();
if (!rg) missing.push("ripgrep");
if (missing.length > 0) {
  const message = `skipped: install ${missing.join(", ")} (apt-get install -y --no-install-recommends ${missing.join(" ")})`;
  process.stdout.write(`tools-search: ${message}\n`);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify({ benchmark: "tools-search", skipped: message }, null, 2)}\n`);
  process.exit(0);
}

// 1. Search: warm workspace against a spawn of rg per query.
const queries = JSON.parse(
  readFileSync(join(here, "..", "packages", "tools", "test", "fixtures", "django-queries.json"), "utf8"),
).queries.map((q) => q.query);
const workspace = await openWorkspace({ root: DJANGO });
let t = performance.now();
await searchCode(workspace, { query: queries[0], maxHits: 1_000_000 });
const coldFirstSearchMs = performance.now() - t;
const warm = workspace.stats();
const ours = queries.map(() => []);
const theirs = queries.map(() => []);
let mismatchedCounts = 0;
for (let r = 0; r < ROUNDS; r += 1) {
  for (const [i, query] of queries.entries()) {
    t = performance.now();
    const result = await searchCode(workspace, { query, maxHits: 1_000_000 });
    ours[i].push(performance.now() - t);
    t = performance.now();
    const lines = await spawnRipgrep(rg, DJANGO, query);
    theirs[i].push(performance.now() - t);
    if (r === 0 && lines !== result.totalHits) mismatchedCounts += 1;
  }
}
const oursPerQuery = ours.map(median);
const rgPerQuery = theirs.map(median);
const search = {
  tree: DJANGO,
  files: warm.files,
  textFiles: warm.cachedTextFiles,
  textMB: round(warm.cachedBytes / 2 ** 20, 1),
  queries: queries.length,
  rounds: ROUNDS,
  coldFirstSearchMs: round(coldFirstSearchMs, 1),
  searchCodeMedianMs: round(median(oursPerQuery)),
  searchCodeP90Ms: round([...oursPerQuery].sort((a, b) => a - b)[Math.floor(0.9 * oursPerQuery.length)]),
  ripgrepSpawnMedianMs: round(median(rgPerQuery)),
  ripgrepSpawnP90Ms: round([...rgPerQuery].sort((a, b) => a - b)[Math.floor(0.9 * rgPerQuery.length)]),
  ratioRipgrepOverSearchCode: round(median(rgPerQuery) / median(oursPerQuery), 2),
  queriesFasterThanRipgrep: oursPerQuery.filter((value, i) => value < rgPerQuery[i]).length,
  hitCountMismatches: mismatchedCounts,
  ripgrep: `${rg} (${execFileSync(rg, ["--version"], { encoding: "utf8" }).split("\n")[0]})`,
};

// 2 and 3. Import graphs, each built in a fresh process.
function graphRun(root, withQueries) {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", fileURLToPath(import.meta.url), "--graph", root, ...(withQueries ? ["--queries"] : [])],
    { encoding: "utf8", maxBuffer: 1 << 26 },
  );
  return JSON.parse(out.trim().split("\n").at(-1));
}
const graphs = {};
let djangoQueries = null;
for (const [name, root, runs] of [
  ["django", DJANGO, GRAPH_RUNS],
  ["sympy", SYMPY, 1],
]) {
  const results = [];
  for (let r = 0; r < runs; r += 1) results.push(graphRun(root, name === "django" && r === 0));
  if (name === "django") djangoQueries = results[0].queries;
  graphs[name] = {
    tree: root,
    runs,
    buildMedianMs: round(median(results.map((x) => x.buildMs)), 0),
    buildMinMs: round(Math.min(...results.map((x) => x.buildMs)), 0),
    peakRssMB: round(Math.max(...results.map((x) => x.peakRssMB)), 1),
    graphHeapMB: round(median(results.map((x) => x.heapGraphMB)), 1),
    contentCachedMB: round(results[0].cachedContentMB, 1),
    parsedFiles: results[0].parsedFiles,
    edges: results[0].edges,
    filesWithParseErrors: results[0].filesWithErrors,
  };
}

const report = {
  benchmark: "tools-search",
  node: process.version,
  cpus: cpus().length,
  search,
  importGraph: graphs,
  connectedTree: { tree: DJANGO, ...djangoQueries },
  targets: {
    searchAtLeastAsFastAsRipgrep: search.ratioRipgrepOverSearchCode >= 1,
    djangoGraphUnder2s: graphs.django.buildMedianMs < 2000,
    connectedTreeUnder5ms: djangoQueries.depth2MaxMs < 5,
  },
};
process.stdout.write(
  [
    `search_code (warm) vs spawning rg -F, ${search.queries} queries × ${ROUNDS} on django (${search.textFiles} text files, ${search.textMB} MB):`,
    `  median per query: search_code ${search.searchCodeMedianMs} ms, rg ${search.ripgrepSpawnMedianMs} ms → rg / search_code = ${search.ratioRipgrepOverSearchCode}×; faster on ${search.queriesFasterThanRipgrep}/${search.queries} queries`,
    `  first search in a cold workspace (reads every file): ${search.coldFirstSearchMs} ms; hit-count mismatches with rg: ${search.hitCountMismatches}`,
    ...Object.entries(graphs).map(
      ([name, g]) =>
        `import graph ${name}: build ${g.buildMedianMs} ms (median of ${g.runs}), ${g.parsedFiles} files, ${g.edges} edges; peak RSS ${g.peakRssMB} MB, graph heap ${g.graphHeapMB} MB (growth, contents dropped), content kept ${g.contentCachedMB} MB`,
    ),
    `connected_tree on django (${djangoQueries.files} files): depth 1 median ${djangoQueries.depth1MedianMs} ms (largest ${djangoQueries.depth1MaxMs}), depth 2 median ${djangoQueries.depth2MedianMs} ms (largest ${djangoQueries.depth2MaxMs})`,
    `targets: ${JSON.stringify(report.targets)}`,
    "",
  ].join("\n"),
);
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
