// Benchmark (issue 18, row 3): the first search_code of a new process, in process: each sample
// is a fresh Node process that opens django's workspace and runs one search, timed inside
// from before the workspace is opened to the result (module loading excluded: that is row 1's
// and row 2's). Against one `rg -F -n --no-ignore` spawn from Node over the same tree (timed
// from spawn to exit, its output read). Two workspaces: the cached one (materializeWorkspace
// from a git mirror of Debian's django: manifest, content pack) and Debian's folder opened in
// place. The hits are checked equal to rg's. Goal: the cached first search no slower than one
// rg spawn. Figures go to results/bench-first-search.json.
//
//   node benchmarks/first-search.mjs
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DJANGO, cachedDjango, median, report, round, scratch } from "./lib/measure.mjs";

const QUERY = process.env.BENCH_QUERY ?? "select_related";
const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === "--child") {
  const [, , , mode, root, optionsJson] = process.argv;
  const tools = await import("@loclab/tools");
  const started = performance.now();
  let hits;
  if (mode === "rg") {
    const output = execFileSync("rg", ["-F", "-n", "--no-ignore", "--no-heading", "--with-filename", QUERY, root], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    hits = output
      .trim()
      .split("\n")
      .map((line) => {
        const [path, number] = line.split(":");
        return `${relative(root, path)}:${number}`;
      });
  } else {
    const workspace =
      mode === "cached"
        ? await tools.materializeWorkspace(JSON.parse(optionsJson))
        : await tools.openWorkspace({ root });
    const result = await tools.searchCode(workspace, { query: QUERY, maxHits: 100_000 });
    hits = result.hits.map((hit) => `${hit.path}:${hit.line}`);
  }
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ ms, hits: hits.sort() }));
  process.exit(0);
}

const rounds = Number(process.env.BENCH_ROUNDS ?? 11);
const work = scratch("first-search");
try {
  const { tree, options } = await cachedDjango(work);
  const modes = [
    ["cached", tree],
    ["folder", DJANGO],
    ["rg", tree],
    ["rg-folder", DJANGO],
  ];
  const times = Object.fromEntries(modes.map(([mode]) => [mode, []]));
  const answers = {};
  for (let round = 0; round <= rounds; round += 1) {
    for (const [mode, root] of modes) {
      const output = JSON.parse(
        execFileSync(
          process.execPath,
          [SELF, "--child", mode === "rg-folder" ? "rg" : mode, root, JSON.stringify(options)],
          { encoding: "utf8", maxBuffer: 1 << 28 },
        ),
      );
      answers[mode] = output.hits;
      if (round > 0) times[mode].push(output.ms); // round 0 warms the page cache
    }
  }
  for (const [a, b] of [
    ["cached", "rg"],
    ["folder", "rg-folder"],
  ]) {
    if (JSON.stringify(answers[a]) !== JSON.stringify(answers[b]))
      throw new Error(`${a}: ${answers[a].length} hits, ${b}: ${answers[b].length}: they differ`);
  }
  const ms = Object.fromEntries(Object.entries(times).map(([mode, list]) => [mode, round(median(list), 1)]));
  report("first-search", {
    row: "first search in a new workspace, in process",
    query: QUERY,
    hits: answers.rg.length,
    loclab: { ms: ms.cached, folderInPlaceMs: ms.folder },
    alternative: { name: "one rg -F spawn", ms: ms.rg, folderMs: ms["rg-folder"] },
    ratio: round(ms.cached / ms.rg, 2),
    goal: "no slower than one rg -F spawn",
    rounds,
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
