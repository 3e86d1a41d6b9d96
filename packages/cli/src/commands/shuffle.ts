import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { parseShuffleMapping, unmapPredictions } from "@loclab/controls";
import { shuffleRepository } from "@loclab/tools";
import { readLoclabPredictions } from "@loclab/predictions";
import { readTextFile, stampRecord } from "@loclab/schemas";
import { type Command, Option } from "commander";
import { numericOption } from "../numeric-option.js";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

/**
 * `loclab shuffle` and `loclab unshuffle`: the repository-shuffling control (docs/definitions.md §4).
 * `shuffle` writes a seeded, renamed copy of a checkout (Python imports rewritten) and the
 * mapping outside it; `unshuffle` maps a loclab predictions file made on the shuffled tree
 * back to the original names before scoring.
 */
export function registerShuffleCommands(program: Command): void {
  program
    .command("shuffle")
    .description(summaryOf("shuffle"))
    .requiredOption("--repo <dir>", "the checkout to shuffle (read only)")
    .requiredOption("--seed <n>", "seed of the renaming")
    .requiredOption("--out <dir>", "where the shuffled copy goes (must not exist, or be empty)")
    .requiredOption("--mapping <file>", "where the mapping goes (outside --out and --repo; never shown to a model)")
    .option(
      "--rewrite-dotted-strings",
      'also rename the repository\'s modules in strings that name them ("django.contrib.admin"); default: counted, left',
    )
    .addOption(
      new Option(
        "--hidden-names <rule>",
        "hidden files and folders: project (rename those naming a top-level package), keep, all",
      )
        .choices(["project", "keep", "all"])
        .default("project"),
    )
    .option("--json", "print the report as JSON")
    .action(
      async (options: {
        repo: string;
        seed: string;
        out: string;
        mapping: string;
        json?: boolean;
        rewriteDottedStrings?: boolean;
        hiddenNames: "project" | "keep" | "all";
      }) => {
        const seed = numericOption("seed", options.seed, { integer: true, min: 0 });
        progress(`shuffling ${options.repo} with seed ${seed}`);
        const report = await shuffleRepository({
          repo: options.repo,
          out: options.out,
          mapping: options.mapping,
          seed,
          rewriteDottedStrings: options.rewriteDottedStrings ?? false,
          hiddenNames: options.hiddenNames,
        });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(report)}\n`);
          return;
        }
        printTable([
          { what: "files written", count: report.files },
          { what: "directories written", count: report.directories },
          { what: "Python files", count: report.pythonFiles },
          { what: "imports rewritten", count: report.importsRewritten },
          { what: "imports of absent modules: repository prefix renamed", count: report.imports.prefixRenamed },
          { what: "imports still naming the repository", count: report.importsLeftNamingRepository },
          { what: "imports inside parse errors (left)", count: report.imports.skippedInErrors },
          { what: "hidden names renamed", count: report.hiddenRenamed.length },
          { what: "dynamic references left (dotted strings)", count: report.unresolvedDynamicReferences },
          { what: "non-code references left", count: report.nonCodeReferencesLeft },
          { what: "files that did not parse", count: report.unparsedFiles.length },
          { what: "entries skipped (links out of the tree, loops…)", count: report.skipped.length },
        ]);
        process.stdout.write(
          `wrote ${options.out} and the mapping ${options.mapping} in ${(report.ms / 1000).toFixed(1)} s\n`,
        );
      },
    );

  program
    .command("unshuffle")
    .description(summaryOf("unshuffle"))
    .requiredOption("--mapping <file>", "the mapping written by loclab shuffle")
    .requiredOption("--predictions <file>", "loclab predictions JSONL (paths in shuffled names)")
    .requiredOption("--out <file>", "where the unshuffled predictions go")
    .action(async (options: { mapping: string; predictions: string; out: string }) => {
      const text = await readTextFile(options.mapping);
      let json: unknown;
      try {
        // A byte-order mark is not JSON, but editors write one; JSONL readers accept it too.
        json = JSON.parse(text);
      } catch (error) {
        throw new Error(`${options.mapping}: invalid JSON: ${(error as Error).message}`);
      }
      let mapping;
      try {
        mapping = parseShuffleMapping(json);
      } catch (error) {
        throw new Error(`${options.mapping}: ${(error as Error).message}`);
      }
      const { predictions, report } = await readLoclabPredictions(options.predictions);
      if (report.duplicateInstanceIds.length > 0) {
        progress(
          `${options.predictions}: ${report.duplicateInstanceIds.length} instance id(s) on more than one line; the first line of each is kept: ${report.duplicateInstanceIds.slice(0, 10).join(", ")}${report.duplicateInstanceIds.length > 10 ? ", …" : ""}`,
        );
      }
      const result = unmapPredictions(mapping, predictions);
      await mkdir(dirname(options.out), { recursive: true });
      await writeFile(
        options.out,
        predictions.length === 0
          ? ""
          : `${result.predictions.map((prediction) => JSON.stringify(stampRecord(prediction))).join("\n")}\n`,
      );
      progress(
        `${result.predictions.length} predictions mapped back; ${result.unmapped.length} paths not in the mapping (marked "<unmapped>/", so they score as misses)`,
      );
    });
}
