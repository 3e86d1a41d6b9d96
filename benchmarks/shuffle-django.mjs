// Benchmark: repository shuffling (docs/definitions.md §4) of Django's tree, as installed by Debian's
// python3-django (/usr/lib/python3/dist-packages/django, copied into a checkout folder).
// Compares loclab's `shuffleRepository` (walk, plan, parse every Python file with
// tree-sitter, rewrite imports, write the copy and the mapping) with the obvious alternatives
// in the same run: a plain `cp -r` of the tree, and a rename-only copy (same walk and plan,
// files copied under their new names, no parsing or rewriting). Figures are printed and
// written to results/bench-shuffle-django.json; nothing is asserted.
//
//   npm run bench            (from the repository root; builds first)
//   node benchmarks/shuffle-django.mjs   (after `npx tsc -p packages/controls/tsconfig.json`)
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { planShuffle, shuffleLookup } from "@loclab/controls";
import { DEFAULT_SKIP_DIRECTORIES, shuffleRepository, walkCheckout } from "@loclab/tools";

const run = promisify(execFile);
const SOURCE = "/usr/lib/python3/dist-packages/django";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = 1;
const TARGET_MS = 10_000;

if (!existsSync(join(SOURCE, "__init__.py"))) {
  console.log(
    `shuffle-django: skipped, ${SOURCE} is missing (apt-get install -y --no-install-recommends python3-django)`,
  );
  process.exit(0);
}

const root = await mkdtemp(join(tmpdir(), "loclab-bench-shuffle-"));
const checkout = join(root, "checkout");
await mkdir(checkout);
await run("cp", ["-a", SOURCE, checkout]);
// A checkout has no bytecode caches (Debian's install does): all three copies get the same tree.
await run("find", [checkout, "-name", "__pycache__", "-prune", "-exec", "rm", "-rf", "{}", "+"]);
let serial = 0;
const fresh = () => join(root, `run-${(serial += 1)}`);

/** Median, min and max wall-clock time of `task`, each round on fresh output paths (cleanup not timed). */
async function timeRounds(task) {
  const times = [];
  let last;
  for (let i = 0; i < WARMUP + ROUNDS; i += 1) {
    const target = fresh();
    const start = performance.now();
    last = await task(target);
    const ms = performance.now() - start;
    await rm(target, { recursive: true, force: true });
    await rm(`${target}.json`, { force: true });
    if (i >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return {
    times: { medianMs: round(times[Math.floor(times.length / 2)]), minMs: round(times[0]), maxMs: round(times.at(-1)) },
    last,
  };
}

const shuffle = await timeRounds((target) =>
  shuffleRepository({ repo: checkout, out: target, mapping: `${target}.json`, seed: 1 }),
);
const copy = await timeRounds((target) => run("cp", ["-r", checkout, target]));
const renameOnly = await timeRounds(async (target) => {
  const walk = await walkCheckout(checkout, { skipDirectories: new Set(DEFAULT_SKIP_DIRECTORIES) });
  const mapping = planShuffle(walk.files, { seed: 1, directories: walk.directories });
  const lookup = shuffleLookup(mapping, "map");
  await mkdir(target);
  for (const folder of walk.directories) await mkdir(join(target, lookup.directories.get(folder)));
  const files = [...walk.files];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (files.length > 0) {
        const file = files.pop();
        await copyFile(join(checkout, file), join(target, lookup.files.get(file)));
      }
    }),
  );
});
await rm(root, { recursive: true, force: true });

const report = shuffle.last;
const result = {
  benchmark: "shuffle-django",
  node: process.version,
  source: SOURCE,
  rounds: ROUNDS,
  tree: {
    files: report.files,
    directories: report.directories,
    pythonFiles: report.pythonFiles,
    renamed: report.renamed,
    kept: report.kept,
    importsRewritten: report.importsRewritten,
    importReferencesInRepository: report.imports.inRepository,
    submoduleNamesRenamed: report.imports.submoduleNamesRenamed,
    attributeReferencesRewritten: report.imports.attributeReferencesRewritten,
    unresolvedDynamicReferences: report.unresolvedDynamicReferences,
    nonCodeReferencesLeft: report.nonCodeReferencesLeft,
    skipped: report.skipped.filter((entry) => entry.reason !== "skipped-directory").length,
  },
  targetMs: TARGET_MS,
  loclabShuffleRepository: shuffle.times,
  plainCpR: copy.times,
  renameOnlyCopy: renameOnly.times,
  // The whole control against copying the tree as it is, and against renaming without parsing.
  ratioShuffleOverCpR: round(shuffle.times.medianMs / copy.times.medianMs),
  ratioShuffleOverRenameOnly: round(shuffle.times.medianMs / renameOnly.times.medianMs),
};

function round(value) {
  return +value.toFixed(2);
}

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "bench-shuffle-django.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${out}`);
