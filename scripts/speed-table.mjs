// Regenerates the table of the speed rows of issue 18 in docs/speed.md from the benchmarks' own
// output (results/bench-<name>.json, written by each script of benchmarks/), so that the
// figures in docs/speed.md are measured, not typed. Replaces what lies between the markers
// <!-- speed-table:start --> and <!-- speed-table:end --> in docs/speed.md; with --print, prints
// the table instead. A row whose result file is missing is an error that names the script
// to run.
//
//   node benchmarks/cli-startup.mjs && … && node scripts/speed-table.mjs
//   node scripts/speed-table.mjs --results DIR --print      (another folder of results)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "./lib/run.mjs";

const { values } = parseArgs({ options: { results: { type: "string" }, print: { type: "boolean" } } });
const results = values.results ?? join(repoRoot, "results");

const ms = (value) =>
  value === null || value === undefined
    ? "—"
    : value >= 1000
      ? `${(value / 1000).toFixed(2)} s`
      : `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const ratio = (value, unit = "×") => (value === null || value === undefined ? "—" : `${value.toFixed(2)}${unit}`);

/** Each row: the benchmark's result file and how its figures read in the table. */
const ROWS = [
  {
    name: "cli-startup",
    row: (r) => [
      `\`loclab mcnemar --b 5 --c 1 --json\` whole process (\`--help\`)`,
      `${ms(r.loclab.ms)} (${ms(r.loclab.helpMs)})`,
      `python3 with math.comb ${ms(r.alternative.ms)}; \`node -e 0\` ${ms(r.floor.ms)}`,
      `${ratio(r.ratio)} python; ${ratio(r.ratioToNodeFloor)} node`,
    ],
  },
  {
    name: "tool-search-process",
    row: (r) => [
      `\`loclab tool search\` on django, whole process: cached workspace (Debian folder)`,
      `${ms(r.loclab.ms)} (${ms(r.loclab.debianFolderMs)})`,
      `\`rg -F\` ${ms(r.alternative.ms)}`,
      ratio(r.ratio),
    ],
  },
  {
    name: "first-search",
    row: (r) => [
      `first search in a new workspace, in process: cached (folder in place)`,
      `${ms(r.loclab.ms)} (${ms(r.loclab.folderInPlaceMs)})`,
      `one \`rg -F\` spawn ${ms(r.alternative.ms)}`,
      ratio(r.ratio),
    ],
  },
  {
    name: "metrics-scoring",
    row: (r) => [
      `scoring 10,000 instances × 20 runs, 60 metrics`,
      ms(r.loclab.ms),
      `${r.alternative.name} ${ms(r.alternative.ms)}${r.floor ? `; floors: coding every string through a Map ${ms(r.floor.codeEveryStringMs)}, reading every string ${ms(r.floor.touchEveryStringMs)}` : ""}`,
      `${ratio(r.ratio)}${r.floor ? `; ${ratio(r.floor.ratioToCoding)} coding` : ""}`,
    ],
  },
  {
    name: "agent-turn",
    row: (r) => [`harness cost per localizer turn (django), warm median`, ms(r.harnessMsPerTurn.warmMedian), "—", "—"],
  },
  {
    name: "import-graph",
    row: (r) => [
      `django import graph: cold build (warm load)`,
      `${ms(r.loclab.ms)}, ${r.loclab.peakRssMiB} MiB${r.loclab.parseThreads ? `, ${r.loclab.parseThreads} threads` : ""} (${ms(r.loclab.warmLoadMs)})${r.loclab.oneThreadMs ? `; one thread ${ms(r.loclab.oneThreadMs)}` : ""}`,
      `CPython \`ast\` ${ms(r.alternative.ms)}, ${r.alternative.peakRssMiB} MiB`,
      `${ratio(r.ratio)}${r.loclab.oneThreadMs ? ` (one thread ${ratio(r.loclab.oneThreadMs / r.alternative.ms)})` : ""}`,
    ],
  },
  {
    name: "trajectories-streaming",
    // One row per set the script measured (201 MB and 1 GiB by default), then the real runs of
    // the shared data when the script found them.
    rows: (r) => [
      ...r.sets.map((set) => [
        `trajectory breakdown, ${Math.round(set.set.bytes / 1e6)} MB: defaults (main thread only)`,
        `${set.loclab.mbPerSecond} MB/s, ${set.loclab.peakRssMiB} MiB, ${set.streamed.threads === 1 ? "1 thread" : `${set.streamed.threads} threads`} (${set.oneThread.mbPerSecond} MB/s, ${set.oneThread.peakRssMb} MiB)`,
        `Python \`json.load\` per file ${set.alternative.mbPerSecond} MB/s, ${set.alternative.peakRssMiB} MiB${set.v8ParseOnly ? `; Node \`JSON.parse\` alone ${set.v8ParseOnly.mbPerSecond} MB/s` : ""}`,
        `${ratio(set.ratio)}${set.v8ParseOnly ? ` (\`JSON.parse\` alone ${ratio(set.v8ParseOnly.ratioToPython)})` : ""}`,
      ]),
      ...(r.real && !r.real.skipped ? [realRow(r.real)] : []),
    ],
  },
];

/** The row of the real runs (benchmarks/trajectories-streaming.mjs, `real`). */
function realRow(real) {
  const name = (run) => run.run.replace(/_(lite|verified)$/, "");
  return [
    `trajectory breakdown, the ${real.perRun.length} real runs of the shared data (${Math.round(real.bytes / 1e6)} MB), one after another in a fresh process`,
    `${real.loclab.mbPerSecond} MB/s (${real.perRun.map((run) => `${name(run)} ${ms(run.loclabMs)}`).join(", ")})`,
    `Python \`json.load\` per file ${real.alternative.mbPerSecond} MB/s (${real.perRun.map((run) => ms(run.pythonMs)).join(", ")}); Node \`JSON.parse\` alone ${real.v8ParseOnly.mbPerSecond} MB/s`,
    `${ratio(real.ratio)} (\`JSON.parse\` alone ${ratio(real.v8ParseOnly.ratioToPython)})`,
  ];
}

const lines = ["| work | loclab | alternative | ratio |", "|---|---|---|---|"];
const loads = [];
for (const { name, row, rows } of ROWS) {
  const file = join(results, `bench-${name}.json`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run node benchmarks/${name}.mjs first`);
  const result = JSON.parse(readFileSync(file, "utf8"));
  for (const cells of rows ? rows(result) : [row(result)]) lines.push(`| ${cells.join(" | ")} |`);
  const load = result.machine?.loadAverage;
  if (load) loads.push(`${name} ${load[0]}`);
}
lines.push(
  "",
  `Measured by the scripts of \`benchmarks/\` (one per row; ratio = loclab / alternative, so below 1 is faster, except MB/s, where above 1 is), Node ${process.version}, ${loads.length ? `1-minute load average at each start: ${loads.join(", ")}` : ""}.`,
);
const table = lines.join("\n");
if (values.print) {
  process.stdout.write(`${table}\n`);
} else {
  const readme = join(repoRoot, "docs", "speed.md");
  const text = readFileSync(readme, "utf8");
  const start = "<!-- speed-table:start -->";
  const end = "<!-- speed-table:end -->";
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/speed.md has no ${start} … ${end} section`);
  writeFileSync(readme, `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`);
  process.stdout.write(`docs/speed.md: speed table regenerated from ${results}\n`);
}
