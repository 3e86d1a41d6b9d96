import { readRunManifest, readTextFile } from "@loclab/schemas";
import { printRepairScore } from "./repair-score.js";
import { printBreakdown } from "../breakdown-print.js";
import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  type BreakdownOptions,
  breakdownJson,
  breakdownRuns,
  parseResolvedSpec,
  parseRunSpec,
  parseLineList,
  parseTaskList,
  type RunSpec,
  readRun,
  runInputOf,
} from "@loclab/analysis";
import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { progress } from "../progress.js";
import { comparisonRows } from "../comparison-table.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

interface BreakdownCommandOptions {
  run?: string[];
  pairedMetric: string;
  resolved: string[];
  base?: string;
  tasks?: string;
  json?: boolean;
  missingFileThreshold: string;
  repeatedLine: string;
  badPrefix?: string[];
  countTools?: string;
  callBudget?: string;
  roundLimit: string;
  repoFiles?: string;
  threads?: string;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readTextFile(path);
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`);
  }
}

/** `--repo-files DIR`: one `<instance_id>.txt` per task listing the repository's files, one per line. */
async function readRepositoryFiles(dir: string): Promise<Map<string, ReadonlySet<string>>> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read --repo-files ${dir}: ${error.code ?? error.message}`);
  });
  const files = new Map<string, ReadonlySet<string>>();
  for (const name of names.filter((n) => n.endsWith(".txt"))) {
    const text = await readText(join(dir, name), "repository file list");
    files.set(basename(name, ".txt"), new Set(parseLineList(text).map(({ value }) => value.replace(/^\.\//, ""))));
  }
  return files;
}

/**
 * `loclab breakdown --run NAME=FORMAT:DIR … [--resolved NAME=FILE …] [--base NAME] [--tasks FILE]
 * [--threads N] [--json]`: the failure breakdown of agent runs from their own logs (docs/definitions.md §8, issue 8).
 * FORMAT is loclab, mini-swe-agent (1.x and 2.x told apart per file), swe-agent or
 * autocoderover. Resolved labels are looked for inside DIR where each format keeps them, or
 * given with --resolved (a SWE-bench report / results JSON, a per-instance report folder, or a
 * resolved-matrix CSV whose column is NAME, or FILE.csv#COLUMN). --tasks restricts every run
 * to the instance ids of a file (one per line). --threads sets the worker threads that read a
 * run's files (readRun's `threads`; the result does not depend on it). --json prints
 * {"runs": [{"run", "tasks", "solved", "outOfBudget", "wrongPatch", "noPatch", "medianCalls",
 * "loops", "loopsFinishLength", "loopsRepeatedLine", "badPrefix", "noFile", "vsBase":
 * {"baseOnly", "runOnly", "p"} | null}], "base", "overlap": {"runs", "both", "pairs"},
 * "everSolved"}; without it, the table as text. Files that do not parse are reported on stderr
 * with their path and reason, and the rest of the run is analysed.
 */
export function registerBreakdownCommand(program: Command): void {
  program
    .command("breakdown")
    .description(summaryOf("breakdown"))
    .argument(
      "[runDir]",
      "a loclab run folder (loclab run's out): its localization breakdown by exit, per cell, with paired tests between cells; no --run then",
    )
    .option(
      "--run <NAME=FORMAT:DIR>",
      "a run: its name, format (loclab, mini-swe-agent, swe-agent, autocoderover) and folder; repeat for more runs",
      collect,
    )
    .option(
      "--resolved <NAME=FILE>",
      "resolved labels for run NAME (report JSON, folder, or resolved-matrix CSV[#column]); repeatable",
      collect,
      [],
    )
    .option(
      "--base <name>",
      "the run the others are compared with (vs. base: base only, run only, exact McNemar p); with a repair run folder, a cell (default its first)",
    )
    .option("--tasks <file>", "instance ids, one per line: every run is restricted to them")
    .option("--json", "print one JSON object")
    .option("--missing-file-threshold <n>", '"No such file" observations that make a task a no-file task', "5")
    .option("--repeated-line <n>", "times one line must repeat in a row in an output to count as a loop (≥ 3)", "5")
    .option("--bad-prefix <prefix>", "a path prefix that does not exist (default /workspace/src/); repeatable", collect)
    .option(
      "--count-tools <list>",
      "comma-separated tools whose calls count (default: all but submit, submit_patch, get_status)",
    )
    .option("--call-budget <n>", "counted calls that exhaust a task's budget (out of budget when reached)")
    .option("--round-limit <n>", "AutoCodeRover's conv_round_limit", "10")
    .option(
      "--repo-files <dir>",
      "one <instance_id>.txt per task listing the repository's files: paths not in it are bad paths",
    )
    .option(
      "--threads <n>",
      "worker threads reading the trajectories (default: the cores, at most 4, for a run of 256 MiB or more, or 16 MiB once they are started; 1 reads in the main thread)",
    )
    .option("--paired-metric <key>", "with a run folder: the binary metric of the paired tests", "file.acc@1")
    .action(async (runDir: string | undefined, options: BreakdownCommandOptions) => {
      if (runDir !== undefined) {
        if (options.run !== undefined)
          throw new Error("give a run folder (loclab breakdown DIR) or --run NAME=FORMAT:DIR, not both");
        if ((await readRunManifest(runDir))?.spec.kind === "repair") {
          await printRepairScore(runDir, {
            json: options.json ?? false,
            write: false,
            ...(options.base !== undefined ? { base: options.base } : {}),
          });
          return;
        }
        await printLocalizationBreakdown(runDir, {
          json: options.json ?? false,
          pairedMetric: options.pairedMetric,
          repeatedLine: numericOption("repeated-line", options.repeatedLine, { integer: true, min: 3 }),
        });
        return;
      }
      if (options.run === undefined)
        throw new Error("give a run folder (loclab breakdown DIR) or at least one --run NAME=FORMAT:DIR");
      const specs: RunSpec[] = options.run.map(parseRunSpec);
      const names = specs.map((spec) => spec.name);
      for (const text of options.resolved) {
        const { name, file } = parseResolvedSpec(text);
        const spec = specs.find((s) => s.name === name);
        if (!spec) throw new Error(`--resolved: no run named ${JSON.stringify(name)} (runs: ${names.join(", ")})`);
        spec.resolved = file;
      }
      if (options.base !== undefined && !names.includes(options.base))
        throw new Error(`--base: no run named ${JSON.stringify(options.base)} (runs: ${names.join(", ")})`);
      let taskIds: string[] | undefined;
      if (options.tasks !== undefined) {
        const text = await readText(options.tasks, "--tasks");
        try {
          taskIds = parseTaskList(text);
        } catch (error) {
          throw new Error(`--tasks ${options.tasks}: ${(error as Error).message}`);
        }
      }
      if (taskIds && taskIds.length === 0) throw new Error(`--tasks: ${options.tasks} lists no instance ids`);
      const repositoryFiles =
        options.repoFiles === undefined ? undefined : await readRepositoryFiles(options.repoFiles);
      const breakdownOptions: BreakdownOptions = {
        noFileThreshold: numericOption("missing-file-threshold", options.missingFileThreshold, {
          integer: true,
          min: 1,
        }),
        loops: { repeatedLine: numericOption("repeated-line", options.repeatedLine, { integer: true, min: 3 }) },
        autoCodeRoverRoundLimit: numericOption("round-limit", options.roundLimit, { integer: true, min: 1 }),
        ...(options.badPrefix ? { badPathPrefixes: options.badPrefix } : {}),
        ...(options.countTools
          ? {
              calls: {
                only: options.countTools
                  .split(",")
                  .map((tool) => tool.trim())
                  .filter((tool) => tool !== ""),
              },
            }
          : {}),
        ...(options.callBudget === undefined
          ? {}
          : { callBudget: numericOption("call-budget", options.callBudget, { integer: true, min: 1 }) }),
        ...(repositoryFiles ? { repositoryFiles: (id: string) => repositoryFiles.get(id) } : {}),
      };
      const tasks = taskIds ? new Set(taskIds) : undefined;
      const threads =
        options.threads === undefined
          ? undefined
          : numericOption("threads", options.threads, { integer: true, min: 1 });
      const inputs = [];
      for (const spec of specs) {
        const read = await readRun(spec, {
          ...(tasks ? { tasks } : {}),
          ...(threads === undefined ? {} : { threads }),
        });
        const sources = read.labels?.sources.map((source) => `${source.kind} ${source.source}`).join("; ") ?? "none";
        progress(
          `${spec.name}: ${read.files} trajectories (${(read.bytes / 1e6).toFixed(1)} MB) read from ${spec.dir}${read.threads > 1 ? ` on ${read.threads} threads` : ""}; labels: ${sources}; ${read.problems.length} problems`,
        );
        for (const problem of read.problems) progress(`${spec.name}: ${problem.path}: ${problem.reason}`);
        inputs.push(runInputOf(read, taskIds ? { taskIds } : {}));
      }
      const breakdown = breakdownRuns(inputs, {
        ...breakdownOptions,
        ...(options.base === undefined ? {} : { base: options.base }),
        ...(taskIds ? { taskIds } : {}),
      });
      if (options.json) {
        process.stdout.write(`${JSON.stringify(breakdownJson(breakdown))}\n`);
        return;
      }
      printBreakdown(breakdown);
    });
}

/**
 * `loclab breakdown RUN_DIR`: a localization run's own breakdown (docs/definitions.md §10): per
 * cell how the attempt keys ended (finished, forced final, invalid final, step limit, wall
 * budget, context limit, token budget, model error, open), loops and paths that do not exist,
 * then each control against plain on the paired metric (exact McNemar).
 */
async function printLocalizationBreakdown(
  dir: string,
  options: { json: boolean; pairedMetric: string; repeatedLine: number },
): Promise<void> {
  const { localizationBreakdown } = await import("@loclab/runner");
  const breakdown = await localizationBreakdown(dir, {
    pairedMetric: options.pairedMetric,
    repeatedLine: options.repeatedLine,
  });
  for (const problem of breakdown.problems) progress(problem);
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify(breakdown, (_key, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value))}\n`,
    );
    return;
  }
  printTable(breakdown.rows.map(({ seed: _seed, control: _control, ...row }) => row));
  process.stdout.write(
    `\neach control against plain on ${breakdown.pairedMetric} (difference = control − plain, points; b: only plain right, c: only the control right; exact McNemar):\n`,
  );
  printTable(comparisonRows(breakdown.comparisons));
}
