// `npm run reproduce`: installs what is needed (npm ci on first use), builds the packages,
// then runs `loclab reproduce`, which writes its tables and charts to results/.
import { join } from "node:path";
import { buildPackages, ensureNodeDependencies } from "./lib/ensure-node-deps.mjs";
import { repoRoot, run, step } from "./lib/run.mjs";

const started = Date.now();
try {
  ensureNodeDependencies();
  buildPackages();
  step("loclab reproduce");
  run(process.execPath, [
    join(repoRoot, "packages", "cli", "dist", "bin.js"),
    "reproduce",
    "--out",
    join(repoRoot, "results"),
    ...process.argv.slice(2),
  ]);
  // Read by scripts/readme-timings.mjs for the README's one line.
  process.stdout.write(`npm run reproduce took ${Math.round((Date.now() - started) / 1000)} s\n`);
} catch (error) {
  process.stderr.write(`reproduce: ${error.message}\n`);
  process.exit(error.exitCode ?? 1);
}
