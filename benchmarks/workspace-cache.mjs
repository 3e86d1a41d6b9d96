// Benchmark: the workspace cache (issue 15). Materializing a repository at a commit cold (the
// cache empty: `git read-tree` + `git checkout-index` from the bare mirror, made read-only,
// manifest written, renamed into place) and warm (the entry is there: what every later run
// pays), against the obvious alternative of extracting the tree afresh for every run
// (`git archive <commit> | tar -x`), and the cache's disk use.
//
// Repository: with LOCLAB_MIRRORS (a folder of mirrors) the base commits of up to
// BENCH_COMMITS (3) SWE-bench Lite sympy instances; without, Debian's python3-django tree
// committed into a fresh repository (installed by `npm run bench`). Figures are printed and
// written to results/bench-workspace-cache.json; nothing is asserted.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { loadBenchmark } from "@loclab/datasets";
import { commitFiles, fixtureGit } from "@loclab/fixtures";
import { clearCachedWorkspaces, findMirror, listWorkspaceCache, materializeWorkspace } from "@loclab/tools";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const root = await mkdtemp(join(tmpdir(), "loclab-bench-cache-"));

let mirrors;
let instances;
let source;
if (process.env.LOCLAB_MIRRORS && existsSync(process.env.LOCLAB_MIRRORS)) {
  mirrors = process.env.LOCLAB_MIRRORS;
  const lite = await loadBenchmark("lite");
  instances = lite.instances
    .filter((instance) => instance.repo === "sympy/sympy")
    .slice(0, Number(process.env.BENCH_COMMITS ?? 3));
  source = `sympy/sympy from ${mirrors}`;
} else {
  const django = "/usr/lib/python3/dist-packages/django";
  if (!existsSync(join(django, "__init__.py"))) {
    console.log(
      `workspace-cache: skipped, ${django} is missing (apt-get install -y --no-install-recommends python3-django), and LOCLAB_MIRRORS is not set`,
    );
    process.exit(0);
  }
  const repo = join(root, "source");
  await mkdir(join(repo, "django"), { recursive: true });
  await run("cp", ["-a", `${django}/.`, join(repo, "django")]);
  await run("find", [repo, "-name", "__pycache__", "-prune", "-exec", "rm", "-rf", "{}", "+"]);
  const commit = await commitFiles(repo, {});
  mirrors = join(root, "mirrors");
  fixtureGit(root, "clone", "-q", "--bare", repo, join(mirrors, "debian__django.git"));
  instances = [{ instance_id: "debian__django-1", repo: "debian/django", base_commit: commit }];
  source = "Debian's python3-django tree in a fresh repository";
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const time = async (action) => {
  const started = performance.now();
  await action();
  return performance.now() - started;
};

const cacheDir = join(root, "cache");
const cold = [];
const warm = [];
const archive = [];
for (let round = 0; round < ROUNDS; round += 1) {
  await clearCachedWorkspaces(cacheDir);
  for (const instance of instances) cold.push(await time(() => materializeWorkspace({ instance, mirrors, cacheDir })));
  for (const instance of instances) {
    warm.push(
      await time(async () => {
        const workspace = await materializeWorkspace({ instance, mirrors, cacheDir });
        await workspace.paths();
      }),
    );
  }
  for (const instance of instances) {
    const mirror = await findMirror(mirrors, instance.repo);
    const out = join(root, `archive-${round}-${instance.instance_id}`);
    archive.push(
      await time(async () => {
        await mkdir(out, { recursive: true });
        await run(
          "sh",
          ["-c", `git --git-dir "${mirror.gitDir}" archive ${instance.base_commit} | tar -x -C "${out}"`],
          { maxBuffer: 1 << 26 },
        );
      }),
    );
    await rm(out, { recursive: true, force: true });
  }
}
const entries = await listWorkspaceCache(cacheDir);
const results = {
  source,
  commits: instances.length,
  rounds: ROUNDS,
  files: entries.map((entry) => entry.files),
  coldMs: { median: median(cold), all: cold.map(Math.round) },
  warmMs: { median: median(warm), all: warm.map((value) => Number(value.toFixed(1))) },
  gitArchiveMs: { median: median(archive), all: archive.map(Math.round) },
  coldOverWarm: median(cold) / median(warm),
  gitArchiveOverWarm: median(archive) / median(warm),
  cacheDiskBytes: entries.reduce((sum, entry) => sum + entry.diskBytes, 0),
  cacheBytes: entries.reduce((sum, entry) => sum + entry.bytes, 0),
};
console.log(
  `workspace-cache (${source}, ${instances.length} commit(s), ${results.files.join("/")} files): cold ${results.coldMs.median.toFixed(0)} ms, warm ${results.warmMs.median.toFixed(1)} ms ` +
    `(${results.coldOverWarm.toFixed(0)}× faster), git archive | tar -x per run ${results.gitArchiveMs.median.toFixed(0)} ms (${results.gitArchiveOverWarm.toFixed(0)}× the warm cache); ` +
    `cache on disk ${(results.cacheDiskBytes / 2 ** 20).toFixed(1)} MiB (${(results.cacheBytes / 2 ** 20).toFixed(1)} MiB of file contents)`,
);
mkdirSync(join(here, "..", "results"), { recursive: true });
writeFileSync(join(here, "..", "results", "bench-workspace-cache.json"), `${JSON.stringify(results, null, 2)}\n`);
await clearCachedWorkspaces(cacheDir);
await rm(root, { recursive: true, force: true });
