import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { REPAIR_RUN_FORMATS, type RunFormat } from "@loclab/analysis";
import { loadBenchmark } from "@loclab/datasets";
import {
  type Candidate,
  CandidateRecordSchema,
  candidatesFromTrajectories,
  readScores,
  samplesFromRun,
  scoreCandidates,
  type ScoringEndpoint,
  type TaskCandidates,
  trainingRecords,
} from "@loclab/fgl";
import { stampRecord, streamJsonl } from "@loclab/schemas";
import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { listedInstances, parseIdList } from "../instance-ids.js";

interface SourceOptions {
  trajectories: string;
  format: string;
  benchmark: string;
  run?: string;
  repos?: string;
  tasks?: string;
  maxLocations: string;
}

/** The trajectories, benchmark rows, samples and checkouts a candidates or score command starts from. */
async function prepare(options: SourceOptions): Promise<TaskCandidates[]> {
  if (!(REPAIR_RUN_FORMATS as readonly string[]).includes(options.format))
    throw new Error(`--format ${options.format}: one of ${REPAIR_RUN_FORMATS.join(", ")}`);
  const benchmark = await loadBenchmark(options.benchmark);
  const instances = new Map(benchmark.instances.map((instance) => [instance.instance_id, instance]));
  const only = options.tasks
    ? new Set(
        listedInstances([...instances.values()], parseIdList(options.tasks), {
          flag: "--tasks",
          benchmark: benchmark.name,
        }).map((instance) => instance.instance_id),
      )
    : undefined;
  const samples = options.run ? await samplesFromRun(options.run) : undefined;
  const { tasks, problems } = await candidatesFromTrajectories({
    dir: options.trajectories,
    format: options.format as RunFormat,
    instances,
    ...(only ? { only } : {}),
    ...(samples ? { samples } : {}),
    ...(options.repos ? { mirrors: options.repos } : {}),
    maxLocations: numericOption("max-locations", options.maxLocations, { integer: true, min: 1 }),
    onTask: (done, total) => {
      if (done % 10 === 0 || done === total) progress(`teacher localizations: ${done}/${total} trajectories`);
    },
  });
  for (const problem of problems) process.stderr.write(`loclab: task ${problem.task}: ${problem.error}\n`);
  if (tasks.length === 0) throw new Error(`${options.trajectories}: no task of ${benchmark.name} could be prepared`);
  if (problems.length > 0) process.exitCode = 1;
  return tasks;
}

async function writeOut(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

function candidateLines(tasks: readonly TaskCandidates[]): string {
  return tasks
    .flatMap((task) => task.candidates.map((candidate) => `${JSON.stringify(stampRecord(candidate))}\n`))
    .join("");
}

function addSourceOptions(command: Command): Command {
  return command
    .requiredOption("--trajectories <dir>", "a folder of real trajectories (one run)")
    .requiredOption("--format <format>", `its format: ${REPAIR_RUN_FORMATS.join(", ")}`)
    .requiredOption(
      "-b, --benchmark <name|path>",
      "the benchmark the tasks come from (issue, base commit, verified patch)",
    )
    .option("--run <dir>", "a loclab localizer run: its seeds' predictions are the K samples")
    .option(
      "--repos <dir>",
      "mirrors folder: code from real checkouts at base commit (default: what the trajectory saw, and the patches' pre-image lines)",
    )
    .option("--tasks <ids>", "only these instance ids (comma-separated)")
    .option("--max-locations <n>", "locations per candidate at most", "8");
}

/**
 * `loclab fgl candidates|score|records` (docs/definitions.md §5–6): teacher localizations from real
 * trajectories and the candidates around them; their scores by a frozen fixer over a
 * completions endpoint; the weighted training records with the per-task score table.
 */
export function registerCandidateCommands(fgl: Command): void {
  addSourceOptions(
    fgl
      .command("candidates")
      .description(
        "teacher localizations from real trajectories (cut at the first edit), the variants and the localizer's samples, de-duplicated",
      ),
  )
    .requiredOption("--out <file>", "candidates, one JSON line each")
    .action(async (options: SourceOptions & { out: string }) => {
      const tasks = await prepare(options);
      await writeOut(options.out, candidateLines(tasks));
      const by: Record<string, number> = {};
      for (const task of tasks)
        for (const [via, n] of Object.entries(task.teacher.recognisedBy)) by[via] = (by[via] ?? 0) + n;
      printTable(
        tasks.map((task) => ({
          task: task.instance.instance_id,
          cutStep: task.teacher.cutStep ?? "none",
          edits: task.teacher.edits.length,
          reads: task.teacher.reads.length,
          unresolved: task.teacher.unresolved.length,
          candidates: task.candidates.length,
        })),
      );
      progress(
        `${tasks.length} tasks, ${tasks.reduce((n, t) => n + t.candidates.length, 0)} candidates → ${options.out}; reads recognised by ${Object.entries(
          by,
        )
          .map(([via, n]) => `${via} ${n}`)
          .join(", ")}`,
      );
    });

  addSourceOptions(
    fgl
      .command("score")
      .description(
        "score every candidate by a frozen fixer's mean log p of the verified patch's added lines (echo + logprobs), minus the context and read penalties",
      ),
  )
    .requiredOption("--endpoint <url...>", "completions server(s), base URL with /v1 (vLLM, or loclab serve)")
    .requiredOption("--model <name>", "the served model name")
    .requiredOption("--out <file>", "scores, one JSON line per candidate, appended as they come (resumes)")
    .option("--candidates-out <file>", "also write the candidates scored")
    .option("--api-key-env <name>", "environment variable holding the servers' API key")
    .option("--budget <tokens>", "token budget of ctx(z)", "6000")
    .option("--lambda-ctx <x>", "λ_ctx per 1,000 context tokens", "0.0097")
    .option("--lambda-req <x>", "λ_req per extra read", "0.017")
    .option("--concurrency <n>", "requests in flight per endpoint", "1")
    .option("--batch-tokens <n>", "prompt tokens in flight per endpoint", "32768")
    .action(
      async (
        options: SourceOptions & {
          endpoint: string[];
          model: string;
          out: string;
          candidatesOut?: string;
          apiKeyEnv?: string;
          budget: string;
          lambdaCtx: string;
          lambdaReq: string;
          concurrency: string;
          batchTokens: string;
        },
      ) => {
        if (options.apiKeyEnv && !process.env[options.apiKeyEnv])
          throw new Error(`--api-key-env ${options.apiKeyEnv}: the variable is not set`);
        const concurrency = numericOption("concurrency", options.concurrency, { integer: true, min: 1 });
        const endpoints: ScoringEndpoint[] = options.endpoint.map((baseURL) => ({
          baseURL,
          model: options.model,
          maxConcurrency: concurrency,
          ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
        }));
        const tasks = await prepare(options);
        if (options.candidatesOut) await writeOut(options.candidatesOut, candidateLines(tasks));
        let lastShown = 0;
        const summary = await scoreCandidates({
          tasks: tasks.map((task) => ({
            task: task.instance.instance_id,
            repo: task.instance.repo,
            issue: task.instance.problem_statement,
            patch: task.instance.patch,
            candidates: task.candidates,
            code: task.code,
          })),
          endpoints,
          out: options.out,
          budget: numericOption("budget", options.budget, { integer: true, min: 1 }),
          lambdaCtx: numericOption("lambda-ctx", options.lambdaCtx, { min: 0 }),
          lambdaReq: numericOption("lambda-req", options.lambdaReq, { min: 0 }),
          batchTokens: numericOption("batch-tokens", options.batchTokens, { integer: true, min: 1 }),
          onProgress: (p) => {
            if (p.last && "error" in p.last) process.stderr.write(`loclab: ${p.last.error}\n`);
            const now = Date.now();
            if (now - lastShown > 2000 || p.done === p.total) {
              lastShown = now;
              progress(
                `scored ${p.done}/${p.total} candidates (${p.scored} scored, ${p.failed} failed, ${p.skipped} already in ${options.out})`,
              );
            }
          },
        });
        const outside = summary.seconds > 0 ? 1 - summary.requestSeconds / summary.seconds : 0;
        progress(
          `${summary.scored} scored in ${summary.seconds.toFixed(1)} s: ${(summary.scored / summary.seconds).toFixed(2)} candidates/s, ${(summary.promptTokens / summary.seconds).toFixed(0)} prompt tokens/s; ` +
            `${(100 * outside).toFixed(1)} % of the wall time outside completions requests (/tokenize ${summary.tokenizeSeconds.toFixed(1)} s); ` +
            `${summary.reusedPrompts} candidates rendered the same prompt as an earlier one and were not sent again`,
        );
        if (summary.unavailable !== undefined)
          process.stderr.write(
            `loclab: stopped: ${summary.unavailable}; the candidates not scored are not in ${options.out}: run the same command again once an endpoint is back\n`,
          );
        if (summary.failed > 0 || summary.unavailable !== undefined) process.exitCode = 1;
      },
    );

  fgl
    .command("records")
    .description(
      "weighted training records (ESS-matched softmax, top M, teacher anchor) and the per-task score table with the score spread",
    )
    .requiredOption("--candidates <file>", "candidates (loclab fgl candidates --out)")
    .requiredOption("--scores <file>", "scores (loclab fgl score --out)")
    .requiredOption("--out <file>", "training records, one JSON line each")
    .option("--ess <n>", "n*, the effective sample size (2: soft EM; 1: hard EM)", "2")
    .option("--top <m>", "M, candidates kept per task", "3")
    .option("--anchor <beta>", "β, the teacher's anchor weight", "0.5")
    .option("--table <file>", "also write the per-task table as JSON")
    .action(
      async (options: {
        candidates: string;
        scores: string;
        out: string;
        ess: string;
        top: string;
        anchor: string;
        table?: string;
      }) => {
        const candidates: Candidate[] = [];
        for await (const { value } of streamJsonl(options.candidates, { schema: CandidateRecordSchema }))
          candidates.push(value);
        const scores = await readScores(options.scores);
        const result = trainingRecords(candidates, scores, {
          ess: numericOption("ess", options.ess, { min: 1 }),
          top: numericOption("top", options.top, { integer: true, min: 1 }),
          anchor: numericOption("anchor", options.anchor, { min: 0, max: 1 }),
        });
        await writeOut(options.out, result.records.map((record) => `${JSON.stringify(record)}\n`).join(""));
        if (options.table)
          await writeOut(
            options.table,
            `${JSON.stringify(stampRecord({ table: result.table, spread: result.spread, topNotTeacherShare: result.topNotTeacherShare }), null, 2)}\n`,
          );
        const f = (x: number | null, digits = 4) => (x === null ? "–" : x.toFixed(digits));
        printTable(
          result.table.map((row) => ({
            task: row.task,
            candidates: row.candidates,
            scored: row.scored,
            failed: row.failed,
            teacher: f(row.teacherScore),
            top: row.top ?? "–",
            topScore: f(row.topScore),
            topIsNotTeacher: row.topIsNotTeacher ?? "–",
            spread: f(row.spread),
          })),
        );
        const s = result.spread;
        progress(
          `${result.records.length} records → ${options.out}; spread σ (median over ${s?.tasks ?? 0} tasks) ${s ? s.median.toFixed(4) : "–"} nats/token (quartiles ${s ? `${s.q1.toFixed(4)}–${s.q3.toFixed(4)}` : "–"}); ` +
            `top candidate not the teacher's in ${result.topNotTeacherShare === null ? "–" : `${(100 * result.topNotTeacherShare).toFixed(1)} %`} of tasks`,
        );
      },
    );
}
