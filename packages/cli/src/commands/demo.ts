import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { summaryOf } from "../command-summaries.js";
import { numericOption } from "../numeric-option.js";

/**
 * `loclab demo --out DIR`: a small benchmark to try a run on with nothing downloaded: the toy
 * benchmark of @loclab/fixtures (`DIR/toy.jsonl`, SWE-bench rows with real patches) and a real
 * bare git mirror per repository (`DIR/mirrors/acme__<name>.git`), made with git here. A run spec
 * then names `"benchmark": "DIR/toy.jsonl"` and `"repos": "DIR/mirrors"` (README, "Running
 * experiments": the spec for the test model). DIR must be new or empty.
 */
export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description(summaryOf("demo"))
    .requiredOption("--out <dir>", "a new or empty folder")
    .option("--repositories <n>", "repositories, 2 to 8", "2")
    .option("--instances <n>", "instances per repository, 1 to 30", "3")
    .action(async (options: { out: string; repositories: string; instances: string }) => {
      const dir = resolve(options.out);
      if (existsSync(dir) && readdirSync(dir).length > 0)
        throw new Error(`--out ${options.out}: the folder is not empty; give a new one`);
      const { buildToyBenchmark } = await import("@loclab/fixtures");
      const toy = await buildToyBenchmark({
        dir,
        repositories: numericOption("repositories", options.repositories, { integer: true, min: 2, max: 8 }),
        instancesPerRepository: numericOption("instances", options.instances, { integer: true, min: 1, max: 30 }),
      });
      process.stdout.write(
        `wrote ${toy.benchmark} (${toy.rows.length} instances) and ${toy.mirrors} (${new Set(toy.rows.map((row) => row.repo)).size} bare git mirrors)\n`,
      );
    });
}
