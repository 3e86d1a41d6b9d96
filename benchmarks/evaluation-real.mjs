// Evaluation on real SWE-bench Lite instances (issue 17, evidence; needs mirrors and a Docker
// engine): for up to --per-repo instances of every Lite repository with a mirror in
// LOCLAB_MIRRORS (or --repos DIR), local images are built (debootstrap base, env images from
// wheels made on the host, instance images from the mirror), the gold patch is evaluated, then
// the empty patch on the same images (tests run on the base commit). Prints per instance the
// verdicts and times, the counts (built, gold resolved, empty not resolved, why the others
// could not run), time per instance with a first build vs with the images reused, and the
// peak disk the engine's data root grew by.
//
//   LOCLAB_MIRRORS=/work/mirrors DOCKER_HOST=unix:///path/docker.sock node benchmarks/evaluation-real.mjs [--per-repo 3] [--repos-only psf/requests,…] [--instances ID,…] [--out DIR] [--concurrency 2]
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { join, resolve } from "node:path";
import { loadBenchmark } from "@loclab/datasets";
import { connectDocker } from "@loclab/docker";
import { mirrorFolder } from "@loclab/checkouts";
import { evaluatePredictions } from "@loclab/evaluation";

const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const repos = arg("--repos", process.env.LOCLAB_MIRRORS);
if (!repos) {
  console.log(
    "evaluation-real: skipped, give LOCLAB_MIRRORS or --repos DIR (a folder of <owner>__<name>.git mirrors) and a Docker engine in DOCKER_HOST",
  );
  process.exit(0);
}
const perRepo = Number(arg("--per-repo", "3"));
const only = arg("--repos-only", undefined)?.split(",");
const ids = arg("--instances", undefined)?.split(",");
const out = resolve(arg("--out", "evaluation-real"));
const concurrency = Number(arg("--concurrency", "2"));
const timeoutMs = Number(arg("--timeout", "1800")) * 1000;
mkdirSync(out, { recursive: true });

const { instances } = await loadBenchmark("lite");
const chosen = [];
const counts = new Map();
for (const row of instances) {
  if (only && !only.includes(row.repo)) continue;
  if (ids && !ids.includes(row.instance_id)) continue;
  if (!existsSync(mirrorFolder(repos, row.repo))) continue;
  const n = counts.get(row.repo) ?? 0;
  if (n >= perRepo) continue;
  counts.set(row.repo, n + 1);
  chosen.push(row);
}
console.log(
  `${chosen.length} Lite instances with a mirror in ${repos}: ${[...counts].map(([repo, n]) => `${repo} ${n}`).join(", ")}`,
);

const { docker } = await connectDocker();
const root = (await docker.info()).DockerRootDir;
const used = async () => {
  const stats = await statfs(root);
  return (Number(stats.blocks) - Number(stats.bfree)) * Number(stats.bsize);
};
const startUsed = await used();
let peak = startUsed;
const sampler = setInterval(() => void used().then((bytes) => (peak = Math.max(peak, bytes))), 2000);

const progress = (label) => (event) => {
  if (event.kind === "log") console.log(`  ${event.line}`);
  else
    console.log(
      `[${label} ${event.done}/${event.total}] ${event.outcome.instance_id} ${event.outcome.status}${event.outcome.infra_failure_reason ? ` (${event.outcome.infra_failure_reason})` : ""} ${(event.outcome.duration_ms / 1000).toFixed(1)} s${event.outcome.cached ? " cached" : ""}`,
    );
};
const common = {
  instances,
  out,
  images: "local",
  repos,
  concurrency,
  timeoutMs,
  cacheDir: false,
  minFreeBytes: 10 * 2 ** 30,
};
const started = Date.now();
const gold = await evaluatePredictions({
  ...common,
  runId: "gold",
  predictions: chosen.map((row) => ({
    instance_id: row.instance_id,
    model_name_or_path: "gold",
    model_patch: row.patch,
  })),
  onProgress: progress("gold"),
});
const goldMs = Date.now() - started;
const empty = await evaluatePredictions({
  ...common,
  runId: "empty",
  runEmptyPatches: true,
  predictions: chosen.map((row) => ({ instance_id: row.instance_id, model_name_or_path: "empty", model_patch: "" })),
  onProgress: progress("empty"),
});
clearInterval(sampler);
peak = Math.max(peak, await used());

const emptyBy = new Map(empty.outcomes.map((outcome) => [outcome.instance_id, outcome]));
const rows = gold.outcomes.map((outcome) => ({
  id: outcome.instance_id,
  gold: outcome,
  empty: emptyBy.get(outcome.instance_id),
}));
const built = rows.filter((row) => row.gold.image).length;
const goldResolved = rows.filter((row) => row.gold.status === "resolved").length;
const emptyNot = rows.filter((row) => row.empty && row.empty.image && row.empty.status === "unresolved").length;
const reasons = {};
for (const row of rows)
  if (row.gold.status === "infra-failure") (reasons[row.gold.infra_failure_reason] ??= []).push(row.id);
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);
const firstBuild = rows.filter((row) => row.gold.image).map((row) => row.gold.duration_ms / 1000);
const reused = rows.filter((row) => row.empty?.image).map((row) => row.empty.duration_ms / 1000);

console.log("\n|instance|gold|empty|gold s (first build)|empty s (images reused)|");
console.log("|---|---|---|---|---|");
for (const row of rows)
  console.log(
    `|${row.id}|${row.gold.status}${row.gold.infra_failure_reason ? ` (${row.gold.infra_failure_reason})` : ""}|${row.empty?.status ?? "-"}|${(row.gold.duration_ms / 1000).toFixed(1)}|${row.empty ? (row.empty.duration_ms / 1000).toFixed(1) : "-"}|`,
  );
const images = (await docker.listImages({ filters: { label: ["loclab.kind"] } })).map((image) => ({
  tags: image.RepoTags,
  kind: image.Labels["loclab.kind"],
  sizeGiB: image.Size / 2 ** 30,
}));
const summary = {
  instances: rows.length,
  built,
  goldResolved,
  emptyNotResolved: emptyNot,
  couldNotRun: reasons,
  goldUnresolved: rows.filter((row) => row.gold.status === "unresolved").map((row) => row.id),
  emptyResolved: rows.filter((row) => row.empty?.status === "resolved").map((row) => row.id),
  meanSecondsFirstBuild: mean(firstBuild),
  meanSecondsImagesReused: mean(reused),
  wallSecondsGold: goldMs / 1000,
  peakDiskGrowthGiB: (peak - startUsed) / 2 ** 30,
  images: Object.fromEntries(
    ["base", "env", "instance"].map((kind) => [
      kind,
      {
        count: images.filter((image) => image.kind === kind).length,
        sizeGiB: images.filter((image) => image.kind === kind).reduce((a, image) => a + image.sizeGiB, 0),
      },
    ]),
  ),
};
console.log(`\n${JSON.stringify(summary, null, 2)}`);
writeFileSync(
  join(out, "evaluation-real.json"),
  `${JSON.stringify({ summary, rows: rows.map((row) => ({ id: row.id, gold: row.gold, empty: row.empty })) }, null, 2)}\n`,
);
