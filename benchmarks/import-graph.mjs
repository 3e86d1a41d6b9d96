// Benchmark (issue 18, row 6): django's import graph. Cold: a fresh Node process builds the
// graph of a cached workspace with no stored graph (file listing, reading, wasm grammar load,
// tree-sitter parse on the default threads: the cores, at most 4, the calling one included;
// resolution), against CPython's `ast` parsing the same .py files in a
// fresh process (benchmarks/lib/python_import_graph.py: the parsing half only; loclab also
// resolves). Warm: a fresh process loads the stored graph (`importGraph()` after opening the
// workspace). Peak RSS of each process. The edge count is checked stable across runs. Goal: warm
// load under 50 ms; cold build no slower than CPython's ast. Figures go to
// results/bench-import-graph.json.
//
//   node benchmarks/import-graph.mjs
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DJANGO, cachedDjango, median, pythonExecutable, report, round, scratch } from "./lib/measure.mjs";

const SELF = fileURLToPath(import.meta.url);
if (process.argv[2] === "--child") {
  const options = JSON.parse(process.argv[3]);
  const tools = await import("@loclab/tools");
  const parseThreads = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
  const workspace = await tools.materializeWorkspace(options);
  const paths = await workspace.paths();
  const started = performance.now();
  // With a thread count: the same cold build on that many threads, not stored.
  const graph =
    parseThreads === undefined
      ? await workspace.importGraph()
      : await new tools.PythonImportIndex(workspace, paths, { parseThreads }).graph();
  const ms = performance.now() - started;
  const source = parseThreads === undefined ? workspace.stats().importGraphSource : "built";
  process.stdout.write(
    JSON.stringify({
      ms,
      source,
      files: graph.files.length,
      edges: graph.stats.edges,
      parseThreads: graph.stats.parseThreads,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
    }),
  );
  process.exit(0);
}

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const work = scratch("import-graph");
const python = pythonExecutable();
try {
  const { options } = await cachedDjango(work);
  const commitFolder = (await import("@loclab/tools")).workspaceCachePath(
    options.cacheDir,
    options.instance.repo,
    options.instance.base_commit,
  );
  const dropStoredGraph = () => {
    for (const name of readdirSync(commitFolder))
      if (name.startsWith("import-graph.")) rmSync(join(commitFolder, name));
  };
  const child = (...threads) =>
    JSON.parse(
      execFileSync(process.execPath, [SELF, "--child", JSON.stringify(options), ...threads], { encoding: "utf8" }),
    );
  const cold = [];
  const oneThread = [];
  const warm = [];
  const ast = [];
  let edges;
  for (let i = 0; i < rounds; i += 1) {
    dropStoredGraph();
    const built = child();
    // (A loclab without stored graphs reports no source: its "warm" load is another build.)
    if (built.source !== "built" && built.source !== undefined)
      throw new Error(`expected a build, got ${built.source}`);
    const loaded = child();
    if (loaded.source !== "cache" && loaded.source !== undefined)
      throw new Error(`expected a stored graph, got ${loaded.source}`);
    if (edges !== undefined && (built.edges !== edges || loaded.edges !== edges))
      throw new Error("edge counts differ between runs");
    edges = built.edges;
    cold.push(built);
    warm.push(loaded);
    oneThread.push(child("1"));
    ast.push(
      JSON.parse(
        execFileSync(python, [join(dirname(SELF), "lib", "python_import_graph.py"), DJANGO], { encoding: "utf8" }),
      ),
    );
  }
  const coldMs = round(median(cold.map((run) => run.ms)), 1);
  const astMs = round(median(ast.map((run) => run.ms)), 1);
  report("import-graph", {
    row: "django import graph build",
    files: cold[0].files,
    edges,
    loclab: {
      ms: coldMs,
      parseThreads: cold[0].parseThreads,
      peakRssMiB: round(median(cold.map((run) => run.peakRssMiB)), 1),
      warmLoadMs: round(median(warm.map((run) => run.ms)), 1),
      warmPeakRssMiB: round(median(warm.map((run) => run.peakRssMiB)), 1),
      // The same cold build parsed in the calling thread only, in the same rounds.
      oneThreadMs: round(median(oneThread.map((run) => run.ms)), 1),
      oneThreadPeakRssMiB: round(median(oneThread.map((run) => run.peakRssMiB)), 1),
    },
    alternative: {
      name: "CPython ast (parse only)",
      ms: astMs,
      peakRssMiB: round(median(ast.map((run) => run.peakRssMiB)), 1),
      pythonFiles: ast[0].files,
    },
    ratio: round(coldMs / astMs, 2),
    goal: "warm load under 50 ms; cold build no slower than CPython's ast",
    rounds,
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
