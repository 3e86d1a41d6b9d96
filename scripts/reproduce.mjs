// `npm run reproduce`: installs what is needed (npm ci on first use), builds the packages,
// then runs `loclab reproduce`, which writes its tables and charts to results/.
import { join } from "node:path";
import { buildPackages, ensureNodeDependencies } from "./lib/ensure-node-deps.mjs";
import { repoRoot, run, step } from "./lib/run.mjs";

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
} catch (error) {
  process.stderr.write(`reproduce: ${error.message}\n`);
  process.exit(error.exitCode ?? 1);
}
