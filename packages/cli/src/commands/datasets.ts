import { BENCHMARKS, resolveDataDir } from "@loclab/datasets";
import type { Command } from "commander";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

/**
 * `loclab datasets`: the bundled benchmark datasets (SWE-bench Lite, Verified, Loc-Bench),
 * their files and whether they are present. Named `datasets`, not `benchmarks`, so that it is
 * not confused with the speed benchmarks of `benchmarks/` (`npm run bench`).
 */
export function registerDatasetsCommand(program: Command): void {
  program
    .command("datasets")
    .description(summaryOf("datasets"))
    .option("--json", "print JSON")
    .option("--data-dir <dir>", "the shared data folder")
    .action((options: { json?: boolean; dataDir?: string }) => {
      const dataDir = resolveDataDir(options.dataDir ? { dataDir: options.dataDir } : {});
      const rows = Object.entries(BENCHMARKS).map(([name, info]) => {
        const path = join(dataDir, info.file);
        return { name, title: info.title, instances: info.expected, path, present: existsSync(path) };
      });
      if (options.json) process.stdout.write(`${JSON.stringify({ dataDir, benchmarks: rows })}\n`);
      else printTable(rows);
    });
}
