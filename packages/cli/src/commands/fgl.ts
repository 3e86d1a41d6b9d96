import { type FixerOutcome, fglTaskWeights, type ScoredCandidate, signalTestTable } from "@loclab/fgl-math";
import { stampRecord, streamJsonl } from "@loclab/schemas";
import type { Command } from "commander";
import { z } from "zod";
import { numericOption } from "../numeric-option.js";
import { progress } from "../progress.js";
import { registerCandidateCommands } from "./fgl-candidates.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

/**
 * One line of a fixer-outcomes file (the offline signal test, docs/definitions.md §6): what the
 * fixer did on a task when started from the teacher's localization (`T`) or the top candidate (`S`).
 */
const FixerOutcomeSchema = z.looseObject({
  task: z.string().min(1),
  input: z.enum(["T", "S"]),
  firstEditAtPatchedLocation: z.boolean(),
  anyHunkReproduced: z.boolean(),
  contextOverflow: z.boolean(),
  localizationSize: z.number().nonnegative(),
});

/** One line of a scores file: a candidate's score s_k (docs/definitions.md §5). */
const ScoreLineSchema = z.union([
  z.looseObject({
    task: z.string().min(1),
    candidate: z.string().min(1),
    score: z.number(),
    teacher: z.boolean().optional(),
  }),
  // An error line of `loclab fgl score` (a candidate that could not be scored): skipped, counted.
  z.looseObject({ task: z.string().min(1), error: z.string(), score: z.undefined().optional() }),
]);

interface WeightsOptions {
  scores: string;
  ess: string;
  top: string;
  anchor: string;
  minWeight: string;
}

/**
 * `loclab fgl weights --scores FILE`: FGL's candidate weights (docs/definitions.md §6) per task.
 * Reads JSON lines `{"task", "candidate", "score", "teacher"?}` and writes, per candidate, a JSON
 * line `{"schemaVersion", "task", "candidate", "weight", "tau", "ess"}` to stdout: `weight` the
 * training weight (a task's sum to 1; the teacher's line carries the anchor β), `tau` the
 * temperature solved (null: uniform, K ≤ n*; 0: the tied best share), `ess` the softmax weights'
 * effective sample size. A task whose scores cannot be weighted (two teachers, a score that is
 * not finite) is reported on stderr by name, the others are still written, and the exit code is
 * 1. A line that is not such an object stops everything, naming file and line, before any output.
 */
export function registerFglCommand(program: Command): void {
  const fgl = program.command("fgl").description(summaryOf("fgl"));
  registerCandidateCommands(fgl);
  fgl
    .command("weights")
    .description(
      "softmax weights at the temperature that reaches an effective sample size, top M kept, the teacher anchored",
    )
    .requiredOption("--scores <file>", 'JSON lines {"task", "candidate", "score", "teacher"?}')
    .option("--ess <n>", "n*, the effective sample size (2: soft EM; 1: hard EM)", "2")
    .option("--top <m>", "M, candidates kept per task", "3")
    .option("--anchor <beta>", "β, the teacher's anchor weight", "0.5")
    .option("--min-weight <w>", "a candidate is kept only with a softmax weight at least this", "0.01")
    .action(async (options: WeightsOptions) => {
      const ess = numericOption("ess", options.ess, { min: 1 });
      const top = numericOption("top", options.top, { integer: true, min: 1 });
      const anchor = numericOption("anchor", options.anchor, { min: 0, max: 1 });
      const minWeight = numericOption("min-weight", options.minWeight, { min: 0, max: 1 });
      const tasks = new Map<string, ScoredCandidate[]>();
      let errorLines = 0;
      for await (const { value } of streamJsonl(options.scores, { schema: ScoreLineSchema })) {
        if (!("candidate" in value) || typeof value.score !== "number" || typeof value.candidate !== "string") {
          errorLines += 1;
          continue;
        }
        const list = tasks.get(value.task) ?? [];
        list.push({ candidate: value.candidate, score: value.score, ...(value.teacher ? { teacher: true } : {}) });
        tasks.set(value.task, list);
      }
      let failed = 0;
      let unreached = 0;
      for (const [task, candidates] of tasks) {
        try {
          const weights = fglTaskWeights(candidates, { ess, top, anchor, minWeight });
          if (!weights.reached) unreached += 1;
          const tau = Number.isFinite(weights.tau) ? weights.tau : null;
          for (const row of weights.rows)
            process.stdout.write(
              `${JSON.stringify(stampRecord({ task, candidate: row.candidate, weight: row.weight, tau, ess: weights.ess }))}\n`,
            );
        } catch (error) {
          failed += 1;
          process.stderr.write(`loclab: task ${task}: ${(error as Error).message}\n`);
        }
      }
      if (errorLines > 0) progress(`${errorLines} error lines (candidates without a score) skipped`);
      progress(
        `${tasks.size} tasks weighted (${failed} failed); ${unreached} could not reach ESS ${ess} (too few candidates, or more than ${ess} tied for the best: uniform or shared among the tied)`,
      );
      if (failed > 0) process.exitCode = 1;
    });
  fgl
    .command("signal-test")
    .description(
      "FGL's offline signal test: fixer outcomes from the teacher's localization (T) and the top candidate (S), paired per task, exact McNemar",
    )
    .requiredOption(
      "--outcomes <file>",
      'JSON lines {"task", "input": "T"|"S", "firstEditAtPatchedLocation", "anyHunkReproduced", "contextOverflow", "localizationSize"}',
    )
    .option("--json", "print one JSON object")
    .action(async (options: { outcomes: string; json?: boolean }) => {
      const outcomes: FixerOutcome[] = [];
      for await (const { value } of streamJsonl(options.outcomes, { schema: FixerOutcomeSchema })) outcomes.push(value);
      const table = signalTestTable(outcomes);
      if (options.json) {
        process.stdout.write(`${JSON.stringify(stampRecord(table))}\n`);
      } else {
        const percent = (value: number) => (Number.isFinite(value) ? `${(100 * value).toFixed(1)} %` : "–");
        printTable(
          table.binary.map((row) => ({
            outcome: row.outcome,
            T: percent(row.teacherRate),
            S: percent(row.studentRate),
            "only T": row.b,
            "only S": row.c,
            "exact McNemar p": row.p.toPrecision(3),
            "S vs T": percent(row.relativeChange),
          })),
        );
        process.stdout.write(
          `localization size: T ${table.size.teacherMean.toFixed(1)}, S ${table.size.studentMean.toFixed(1)} (${percent(table.size.relativeChange)}; median S/T ${table.size.medianRatio.toFixed(3)})\n`,
        );
      }
      progress(
        `${table.tasks} paired tasks; ${table.unpaired.length} with only one input left out${table.unpaired.length > 0 ? ` (${table.unpaired.slice(0, 5).join(", ")}${table.unpaired.length > 5 ? ", …" : ""})` : ""}`,
      );
    });
}
