// Benchmark (issue 18, row 2): `loclab tool search` on django, whole process, against one
// `rg -F -n --no-ignore` over the same tree; interleaved, the hits checked equal (path:line).
// Two trees: a cached workspace (Debian's django materialized from a git mirror, as runs make
// them: manifest, content pack) and Debian's folder in place (no cache). Goal: under 0.5 s on
// the cached workspace. Figures go to results/bench-tool-search-process.json.
//
//   node benchmarks/tool-search-process.mjs
import { rmSync } from "node:fs";
import { join, relative } from "node:path";
import { DJANGO, cachedDjango, interleaved, repoRoot, report, round, scratch } from "./lib/measure.mjs";

const QUERY = process.env.BENCH_QUERY ?? "select_related";
const rounds = Number(process.env.BENCH_ROUNDS ?? 11);
const bin = join(repoRoot, "packages", "cli", "bin", "loclab.mjs");
const work = scratch("tool-search");
try {
  const { tree } = await cachedDjango(work);
  const loclabHits = (stdout) =>
    JSON.parse(stdout)
      .hits.map((hit) => `${hit.path}:${hit.line}`)
      .sort();
  const rgHits = (root, stdout) =>
    stdout
      .trim()
      .split("\n")
      .map((line) => {
        const [path, number] = line.split(":");
        return `${relative(root, path)}:${number}`;
      })
      .sort();
  const answers = {};
  const record = (name, hits) => {
    answers[name] = hits;
  };
  const commands = [];
  for (const [label, root] of [
    ["cached workspace", tree],
    ["Debian folder", DJANGO],
  ]) {
    commands.push({
      name: `loclab (${label})`,
      file: process.execPath,
      args: [bin, "tool", "search", "--repo", root, "--query", QUERY, "--max-hits", "500", "--json"],
      check: (stdout, status, name) => {
        if (status !== 0) throw new Error(`${name} exited ${status}`);
        record(name, loclabHits(stdout));
      },
    });
    commands.push({
      name: `rg (${label})`,
      file: "rg",
      args: ["-F", "-n", "--no-ignore", "--no-heading", "--with-filename", QUERY, root],
      check: (stdout, _status, name) => record(name, rgHits(root, stdout)),
    });
  }
  const times = interleaved(commands, { rounds });
  for (const label of ["cached workspace", "Debian folder"]) {
    const a = answers[`loclab (${label})`];
    const b = answers[`rg (${label})`];
    if (JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(`${label}: loclab found ${a.length} hits, rg ${b.length}: they differ`);
  }
  const cached = times["loclab (cached workspace)"].medianMs;
  report("tool-search-process", {
    row: "`loclab tool search` on django, whole process",
    query: QUERY,
    hits: answers["rg (cached workspace)"].length,
    loclab: { ms: cached, debianFolderMs: times["loclab (Debian folder)"].medianMs },
    alternative: {
      name: "rg -F",
      ms: times["rg (cached workspace)"].medianMs,
      debianFolderMs: times["rg (Debian folder)"].medianMs,
    },
    ratio: round(cached / times["rg (cached workspace)"].medianMs, 2),
    goal: "under 500 ms on a cached workspace",
    times,
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
