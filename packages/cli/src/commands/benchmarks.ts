import { BENCHMARKS, resolveDataDir } from "@loclab/datasets";
import type { Command } from "commander";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { printTable } from "../table.js";

/** `loclab benchmarks`: the bundled benchmarks, their files and whether they are present. */
export function registerBenchmarksCommand(program: Command): void {
  program
    .command("benchmarks")
    .description("list the bundled benchmarks and where their files are")
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
