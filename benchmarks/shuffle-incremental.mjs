// Incremental shuffling on real SWE-bench repositories (issue 53): per repository, its Lite
// base commits in the order the tasks were filed, each shuffled twice with the same seed:
// from scratch, and with a facts store (`factsDir`) warmed by the commits before it. Reports
// both times, the files whose parse was reused, and whether the two copies are identical
// (every file's bytes and mode, every link, the mapping without its provenance).
//
//   LOCLAB_MIRRORS=/work/mirrors node benchmarks/shuffle-incremental.mjs [--repo sympy/sympy --repo pytest-dev/pytest] [--commits 10]
//
// Needs git mirrors (`<owner>__<name>[.git]`); a repository without one is skipped and said so.
// Figures are printed and written to results/bench-shuffle-incremental.json; nothing is asserted.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { lstat, mkdtemp, readdir, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { materializeWorkspace, shuffleRepository } from "@loclab/tools";
import { liteCommits, mirrorBenchmarkOptions } from "./lib/lite-commits.mjs";

const { mirrors, repos, perRepo, seed } = mirrorBenchmarkOptions("shuffle-incremental");
const walked = await liteCommits({ mirrors, repos, perRepo });
const work = await mkdtemp(join(tmpdir(), "loclab-bench-shuffle-incremental-"));

/** Every entry of a tree: each file's bytes and mode, each link's target, each folder. */
async function treeDigest(root) {
  const hash = createHash("sha256");
  const walk = async (rel) => {
    for (const name of (await readdir(join(root, rel))).sort()) {
      const path = join(rel, name);
      const stat = await lstat(join(root, path));
      if (stat.isSymbolicLink()) hash.update(`L ${path} ${await readlink(join(root, path))}\n`);
      else if (stat.isDirectory()) {
        hash.update(`D ${path}\n`);
        await walk(path);
      } else
        hash
          .update(`F ${path} ${stat.mode & 0o7777} `)
          .update(await readFile(join(root, path)))
          .update("\n");
    }
  };
  await walk("");
  return hash.digest("hex");
}
const mappingOf = async (file) => {
  const { provenance: _provenance, ...mapping } = JSON.parse(await readFile(file, "utf8"));
  return JSON.stringify(mapping);
};
const seconds = (ms) => Math.round(ms) / 1000;
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const results = [];
try {
  for (const { repo, commits: picked } of walked) {
    const commits = picked.map((entry) => entry.commit);
    const factsDir = join(work, "facts", repo.replace("/", "__"));
    for (const [index, commit] of commits.entries()) {
      let started = performance.now();
      const workspace = await materializeWorkspace({
        instance: { repo, base_commit: commit },
        mirrors,
        cacheDir: join(work, "trees"),
      });
      const checkoutMs = performance.now() - started;
      const at = (name) => join(work, "copies", name);
      await rm(join(work, "copies"), { recursive: true, force: true });
      started = performance.now();
      await shuffleRepository({ repo: workspace.root, out: at("scratch"), mapping: at("scratch.json"), seed });
      const scratchMs = performance.now() - started;
      started = performance.now();
      const report = await shuffleRepository({
        repo: workspace.root,
        out: at("incremental"),
        mapping: at("incremental.json"),
        seed,
        factsDir,
      });
      const incrementalMs = performance.now() - started;
      const identical =
        (await treeDigest(at("scratch"))) === (await treeDigest(at("incremental"))) &&
        (await mappingOf(at("scratch.json"))) === (await mappingOf(at("incremental.json")));
      const row = {
        repo,
        index,
        commit: commit.slice(0, 12),
        files: report.files,
        pythonFiles: report.pythonFiles,
        factsReused: report.factsReused,
        checkoutS: seconds(checkoutMs),
        scratchS: seconds(scratchMs),
        incrementalS: seconds(incrementalMs),
        identical,
      };
      results.push(row);
      console.log(JSON.stringify(row));
    }
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

const summary = repos
  .map((repo) => {
    const rows = results.filter((row) => row.repo === repo);
    if (rows.length === 0) return undefined;
    const later = rows.slice(1);
    return {
      repo,
      commits: rows.length,
      identical: rows.filter((row) => row.identical).length,
      firstScratchS: rows[0].scratchS,
      secondIncrementalS: rows[1]?.incrementalS ?? null,
      medianScratchS: median(rows.map((row) => row.scratchS)),
      medianIncrementalLaterS: later.length ? median(later.map((row) => row.incrementalS)) : null,
      ratio: later.length ? median(later.map((row) => row.scratchS / row.incrementalS)) : null,
    };
  })
  .filter(Boolean);
console.table(summary);
const out = join(dirname(fileURLToPath(import.meta.url)), "..", "results");
if (!existsSync(out)) mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, "bench-shuffle-incremental.json"),
  `${JSON.stringify({ commitsPerRepo: perRepo, seed, results, summary }, null, 2)}\n`,
);
