import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { filesAtCommit } from "@loclab/checkouts";
import { type KnownFiles, MASK_LEVELS, type MaskLevel, maskBenchmark } from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";
import { stampRecord } from "@loclab/schemas";
import { type Command, Option } from "commander";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

interface MaskCommandOptions {
  benchmark: string;
  level: MaskLevel;
  out: string;
  report?: string;
  repos?: string;
  includeHints?: boolean;
  json?: boolean;
  dataDir?: string;
}

/**
 * `loclab mask`: the path-masking control (docs/definitions.md §4) over a benchmark. Writes to
 * `--out` the instances with their problem statement (and, with `--include-hints`, their
 * `hints_text`) masked, and nothing else of the originals: the file can be handed to a model.
 * What was replaced (originals, placeholders, offsets, what was left alone) goes to the
 * separate `--report` file (default `<out without .jsonl>.report.jsonl`). With `--repos DIR`
 * the known files are the base commit's full file list (read from the mirrors), so only
 * mentions of files that exist there are masked; without, the files the patches touch.
 */
export function registerMaskCommand(program: Command): void {
  program
    .command("mask")
    .description(summaryOf("mask"))
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .addOption(
      new Option(
        "--level <level>",
        "what to mask: paths-only (file paths and names); modules (also dotted module paths: the control); symbols (also gold symbols)",
      )
        .choices([...MASK_LEVELS])
        .default("modules"),
    )
    .requiredOption("-o, --out <file>", "JSONL file for the masked instances (no original text in it)")
    .option(
      "--report <file>",
      "JSONL file for what was replaced, with the original texts (default: <out>.report.jsonl)",
    )
    .option("--repos <dir>", "folder of mirrors: mask against the base commit's full file list")
    .option("--include-hints", "also mask hints_text, with the same placeholders")
    .option("--json", "print the summary as JSON")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: MaskCommandOptions) => {
      const benchmark = await loadBenchmark(options.benchmark, options.dataDir ? { dataDir: options.dataDir } : {});
      const reportFile = options.report ?? `${options.out.replace(/\.jsonl$/, "")}.report.jsonl`;
      if (reportFile === options.out) throw new Error("mask: --report must differ from --out");
      let knownFilesOf: ((instance: { instance_id: string }) => KnownFiles) | undefined;
      if (options.repos) {
        const lists = new Map<string, string[]>();
        for (const [index, instance] of benchmark.instances.entries()) {
          const key = `${instance.repo}@${instance.base_commit}`;
          if (lists.has(key)) continue;
          try {
            lists.set(
              key,
              await filesAtCommit({ mirrors: options.repos, repo: instance.repo, commit: instance.base_commit }),
            );
          } catch (error) {
            throw new Error(
              `mask: ${instance.instance_id}: ${(error as Error).message}; nothing was written (loclab mirrors check --repos ${options.repos} lists what is missing)`,
            );
          }
          if ((index + 1) % 50 === 0) progress(`file lists: ${index + 1}/${benchmark.instances.length} instances`);
        }
        const byId = new Map(
          benchmark.instances.map((instance) => [
            instance.instance_id,
            lists.get(`${instance.repo}@${instance.base_commit}`) as string[],
          ]),
        );
        knownFilesOf = (instance) => ({ files: byId.get(instance.instance_id) ?? [] });
      }
      const { rows, summary } = maskBenchmark(benchmark.instances, {
        level: options.level,
        includeHints: options.includeHints ?? false,
        ...(knownFilesOf ? { knownFilesOf } : {}),
      });
      const masked: string[] = [];
      const reports: string[] = [];
      for (const [i, instance] of benchmark.instances.entries()) {
        const row = rows[i];
        if (!row) throw new Error(`internal: no masking result for ${instance.instance_id}`);
        try {
          masked.push(
            JSON.stringify(
              stampRecord({
                ...instance,
                problem_statement: row.maskedProblemStatement,
                ...(row.maskedHintsText !== undefined ? { hints_text: row.maskedHintsText } : {}),
              }),
            ),
          );
          reports.push(
            JSON.stringify(
              stampRecord({
                instance_id: instance.instance_id,
                original_problem_statement: instance.problem_statement,
                ...(options.includeHints ? { original_hints_text: instance.hints_text ?? "" } : {}),
                mask: {
                  level: options.level,
                  knownFiles: options.repos ? "base-commit" : "patches",
                  replacements: row.report.replacements,
                  placeholders: row.report.placeholders,
                  leftAlone: row.report.leftAlone,
                },
              }),
            ),
          );
        } catch (error) {
          // JSON.stringify recurses: a field nested hundreds of thousands deep cannot be written back.
          throw new Error(
            `${options.benchmark}: ${instance.instance_id} (row ${i + 1}): cannot be written: ${(error as Error).message} (a field nested too deeply?); nothing was written`,
          );
        }
      }
      for (const [file, lines] of [
        [options.out, masked],
        [reportFile, reports],
      ] as const) {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, `${lines.join("\n")}\n`);
      }
      progress(`wrote ${masked.length} masked instances to ${options.out} and what was replaced to ${reportFile}`);
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ benchmark: benchmark.name, out: options.out, report: reportFile, knownFiles: options.repos ? "base-commit" : "patches", ...summary })}\n`,
        );
        return;
      }
      process.stdout.write(
        `${benchmark.name}: ${summary.instancesWithMention} of ${summary.instances} issues had a mention masked at level ${summary.level} (known files: ${options.repos ? "the base commit's full list" : "those the patches touch"}); ${summary.leftAlone} file paths resolved to no known file and were left alone\n`,
      );
      printTable(Object.entries(summary.mentionsReplaced).map(([kind, count]) => ({ kind, replaced: count })));
      printTable(
        (["path", "module", "basename", "symbol"] as const).map((kind) => ({
          "issues naming their gold": kind,
          before: summary.revealingBefore[kind],
          after: summary.revealingAfter[kind],
        })),
      );
    });
}
