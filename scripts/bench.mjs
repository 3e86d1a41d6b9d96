// `npm run bench`: installs and builds on first use, then runs every benchmark in benchmarks/.
// Benchmarks print their figures and write them to results/; none asserts a time.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { TEST_CORPUS_PACKAGES, ensureDebianPackages } from "./lib/debian.mjs";
import { buildPackages, ensureNodeDependencies } from "./lib/ensure-node-deps.mjs";
import { repoRoot, run, step } from "./lib/run.mjs";

try {
  ensureNodeDependencies();
  buildPackages();
  ensureDebianPackages(TEST_CORPUS_PACKAGES, { reason: "the django and sympy trees the benchmarks read" });
  const dir = join(repoRoot, "benchmarks");
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".mjs"))
    .sort()) {
    step(`benchmark ${file}`);
    run(process.execPath, [join(dir, file)]);
  }
} catch (error) {
  process.stderr.write(`bench: ${error.message}\n`);
  process.exit(error.exitCode ?? 1);
}
