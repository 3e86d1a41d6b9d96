import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { MASK_LEVELS, type MaskLevel, maskBenchmark } from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";
import { stampRecord } from "@loclab/schemas";
import { type Command, Option } from "commander";
import { progress } from "../progress.js";
import { printTable } from "../table.js";

interface MaskCommandOptions {
  benchmark: string;
  level: MaskLevel;
  out: string;
  json?: boolean;
  dataDir?: string;
}

/**
 * `loclab mask`: the path-masking control (docs/definitions.md §4) over a benchmark. Writes JSONL to
 * `--out`: each instance with its problem statement masked, plus `mask` (the replacements:
 * kind, original, placeholder, offsets) and `original_problem_statement`; prints a summary.
 */
export function registerMaskCommand(program: Command): void {
  program
    .command("mask")
    .description("mask mentions of repository files in a benchmark's issue texts (path-masking control)")
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .addOption(new Option("--level <level>", "what to mask: paths-only (file paths and names); modules (also dotted module paths: the control); symbols (also gold symbols)").choices([...MASK_LEVELS]).default("modules"))
    .requiredOption("-o, --out <file>", "JSONL file for the masked instances and their reports")
    .option("--json", "print the summary as JSON")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: MaskCommandOptions) => {
      const benchmark = await loadBenchmark(options.benchmark, options.dataDir ? { dataDir: options.dataDir } : {});
      const { rows, summary } = maskBenchmark(benchmark.instances, { level: options.level });
      const lines = benchmark.instances.map((instance, i) => {
        const row = rows[i];
        if (!row) throw new Error(`internal: no masking result for ${instance.instance_id}`);
        try {
          return JSON.stringify(
            stampRecord({
              ...instance,
              problem_statement: row.maskedProblemStatement,
              original_problem_statement: instance.problem_statement,
              mask: { level: options.level, replacements: row.report.replacements, placeholders: row.report.placeholders },
            }),
          );
        } catch (error) {
          // JSON.stringify recurses: a field nested hundreds of thousands deep cannot be written back.
          throw new Error(`${options.benchmark}: ${instance.instance_id} (row ${i + 1}): cannot be written: ${(error as Error).message} (a field nested too deeply?); nothing was written`);
        }
      });
      await mkdir(dirname(options.out), { recursive: true });
      await writeFile(options.out, `${lines.join("\n")}\n`);
      progress(`wrote ${lines.length} masked instances to ${options.out}`);
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ benchmark: benchmark.name, out: options.out, ...summary })}\n`);
        return;
      }
      process.stdout.write(`${benchmark.name}: ${summary.instancesWithMention} of ${summary.instances} issues had a mention masked at level ${summary.level}\n`);
      printTable(Object.entries(summary.mentionsReplaced).map(([kind, count]) => ({ kind, replaced: count })));
      printTable(
        (["path", "module", "basename", "symbol"] as const).map((kind) => ({ "issues naming their gold": kind, before: summary.revealingBefore[kind], after: summary.revealingAfter[kind] })),
      );
    });
}
