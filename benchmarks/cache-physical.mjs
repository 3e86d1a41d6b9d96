// The workspace cache's size at benchmark scale (issue 53, deliverable 3): per repository,
// its Lite base commits in the order the tasks were filed, each prepared as the runner
// prepares a plain and a shuffled cell (`CellWorkspaces.prepare`: the tree, the shuffled copy
// with its facts, both content packs). Reports, after each commit, the cache's logical size
// (every tree, copy and pack as if nothing were shared), its physical size (`loclab cache
// ls`: each block once) checked against GNU du, and the time each preparation took; then
// the same split by what holds the bytes: the blob store, the packs, the rest.
//
//   LOCLAB_MIRRORS=/work/mirrors node benchmarks/cache-physical.mjs [--repo sympy/sympy --repo pytest-dev/pytest] [--commits 10]
//
// Needs git mirrors (`<owner>__<name>[.git]`); a repository without one is skipped and said so.
// Figures are printed and written to results/bench-cache-physical.json; nothing is asserted.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CellWorkspaces } from "@loclab/runner";
import { CONTENT_PACK_FILE, listWorkspaceCache } from "@loclab/tools";
import { liteCommits, mirrorBenchmarkOptions } from "./lib/lite-commits.mjs";

const { mirrors, repos, perRepo, seed } = mirrorBenchmarkOptions("cache-physical");
const cacheDir = await mkdtemp(join(tmpdir(), "loclab-bench-cache-physical-"));
const MiB = 1024 * 1024;

/** Disk blocks of every content pack in the cache (a pack is one file per tree or copy, never linked). */
async function packBytes(folder) {
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== "tree" && entry.name !== "blobs") bytes += await packBytes(path);
    else if (entry.name === CONTENT_PACK_FILE) bytes += (await lstat(path)).blocks * 512;
  }
  return bytes;
}

async function sizes() {
  const entries = await listWorkspaceCache(cacheDir);
  const logical = entries.reduce((sum, entry) => sum + (entry.kind === "blobs" ? 0 : entry.bytes), 0);
  const physical = entries.reduce((sum, entry) => sum + entry.diskBytes, 0);
  const du = Number(execFileSync("du", ["-s", "--block-size=1", cacheDir], { encoding: "utf8" }).split("\t")[0]);
  const blobs = entries.find((entry) => entry.kind === "blobs")?.diskBytes ?? 0;
  return { logical, physical, du, blobs, packs: await packBytes(cacheDir) };
}

const workspaces = new CellWorkspaces({ mirrors, cacheDir });
const steps = [];
for (const { repo, commits } of await liteCommits({ mirrors, repos, perRepo })) {
  for (const [index, { commit, instance }] of commits.entries()) {
    const attempt = (control) => ({ key: `${instance.instance_id}/${control.kind}`, instance, cell: { control } });
    const started = performance.now();
    await workspaces.prepare(attempt({ kind: "plain" }));
    const plainMs = performance.now() - started;
    await workspaces.prepare(attempt({ kind: "shuffled", seed, textPolicy: "names" }));
    const shuffledMs = performance.now() - started - plainMs;
    const size = await sizes();
    steps.push({ repo, index: index + 1, commit, plainMs, shuffledMs, ...size });
    console.log(
      `${repo} ${index + 1}/${commits.length} ${commit.slice(0, 12)}: tree ${(plainMs / 1000).toFixed(1)} s, shuffled ${(shuffledMs / 1000).toFixed(1)} s; cache logical ${(size.logical / MiB).toFixed(0)} MiB, physical ${(size.physical / MiB).toFixed(0)} MiB (du ${(size.du / MiB).toFixed(0)}; blobs ${(size.blobs / MiB).toFixed(0)}, packs ${(size.packs / MiB).toFixed(0)})`,
    );
  }
}
const last = steps.at(-1);
const summary = last && {
  commits: steps.length,
  logicalMiB: last.logical / MiB,
  physicalMiB: last.physical / MiB,
  duMiB: last.du / MiB,
  blobsMiB: last.blobs / MiB,
  packsMiB: last.packs / MiB,
  ratio: last.logical / last.physical,
};
if (summary)
  console.log(
    `${summary.commits} commits, plain and shuffled: logical ${summary.logicalMiB.toFixed(0)} MiB, physical ${summary.physicalMiB.toFixed(0)} MiB (${summary.ratio.toFixed(1)}× smaller; du ${summary.duMiB.toFixed(0)} MiB), of which the blob store ${summary.blobsMiB.toFixed(0)} MiB and the content packs ${summary.packsMiB.toFixed(0)} MiB`,
  );
const out = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "bench-cache-physical.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ repos, perRepo, seed, steps, summary }, null, 2)}\n`);
await rm(cacheDir, { recursive: true, force: true });
