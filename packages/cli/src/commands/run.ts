import {
  formatRunStatus,
  loadRunSpec,
  RunSpecError,
  readRunStatus,
  resumeRun,
  type RunScore,
  type RunSpec,
  type RunSummary,
  besideSherlocRows,
  scoreRun,
  startRun,
  terminalProgress,
} from "@loclab/runner";
import type { Command } from "commander";
import { readRunManifest, writeFileAtomic } from "@loclab/schemas";
import { formatCounts } from "../format-counts.js";
import { progress } from "../progress.js";
import { printRepairScore } from "./repair-score.js";
import { numericOption } from "../numeric-option.js";
import { summaryOf } from "../command-summaries.js";
import { comparisonRows } from "../comparison-table.js";
import { printTable } from "../table.js";

/** What a run's end says on stderr and what the exit code is: 0 only when every attempt key has a final outcome. */
export function reportRunEnd(summary: RunSummary, options: { allowPartial?: boolean } = {}): void {
  const missing = Object.entries(summary.noPrediction)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  const outcomes = Object.entries(summary.outcomes)
    .map(([outcome, n]) => `${outcome} ${n}`)
    .join(", ");
  process.stdout.write(
    `run: ${summary.dir}\n` +
      `keys: ${summary.keys}, done ${summary.done}, ${summary.resolved !== undefined ? `resolved ${summary.resolved}` : `with a prediction ${summary.predicted}`}${outcomes ? ` (${outcomes})` : ""}\n` +
      `this session: ${summary.attemptsThisSession} attempt(s), ${summary.failuresThisSession} infrastructure or harness failure(s), ${summary.retriesThisSession} retried request(s)\n` +
      (missing ? `no prediction: ${missing}\n` : ""),
  );
  if (summary.complete) return;
  const why = summary.stoppedBy ? ` (stopped: ${summary.stoppedBy})` : "";
  if (options.allowPartial && summary.predicted > 0) return;
  throw new Error(
    `${summary.keys - summary.done} of ${summary.keys} attempt key(s) have no final outcome${why}; continue with: loclab run --resume ${summary.dir}`,
  );
}

/** Runs with the terminal progress display and Ctrl-C as a graceful stop (a second Ctrl-C quits at once). */
export async function runWithProgress(
  run: (options: {
    onEvent: (event: Parameters<ReturnType<typeof terminalProgress>["onEvent"]>[0]) => void;
    signal: AbortSignal;
  }) => Promise<RunSummary>,
): Promise<RunSummary> {
  const display = terminalProgress();
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(
      "loclab: stopping after the attempts in flight (Ctrl-C again to quit now; the run resumes either way)\n",
    );
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    return await run({ onEvent: display.onEvent, signal: controller.signal });
  } finally {
    process.removeListener("SIGINT", onSigint);
    display.stop();
  }
}

/**
 * `loclab run SPEC`, `loclab run --resume DIR`, `loclab run score DIR`, and `loclab status DIR`
 * (docs/definitions.md §10). The CLI only parses arguments: the runner package does the work.
 */
export function registerRunCommands(program: Command): void {
  const run = program
    .command("run")
    .description(summaryOf("run"))
    .argument("[spec]", "run spec, JSON or YAML (see README: Running experiments)")
    .option("--resume <dir>", "continue the run in this folder exactly where it stopped")
    .option("--allow-partial", "exit 0 when some keys are left open but at least one has a prediction")
    .option(
      "--queue <url>",
      "run on BullMQ workers (loclab worker) over this Redis, redis://HOST:PORT (password in LOCLAB_REDIS_PASSWORD): one job per attempt key, results committed here",
    )
    .option("--queue-name <name>", "the queue's name (the workers' --queue-name)", "loclab-attempts")
    .option(
      "--slurm <file>",
      "start vLLM servers as a Slurm job (loclab vllm slurm submit's servers file); each joins the run's pool once ready; scancel at the end",
    )
    .action(
      async (
        specFile: string | undefined,
        options: { resume?: string; allowPartial?: boolean; queue?: string; queueName: string; slurm?: string },
      ) => {
        if ((specFile === undefined) === (options.resume === undefined))
          throw new Error("give a run spec (loclab run SPEC) or --resume DIR, not both and not neither");
        let spec: RunSpec | undefined;
        if (specFile) spec = await loadRunSpec(specFile);
        const queued = options.queue ? ` --queue ${options.queue}` : "";
        const command = specFile ? `loclab run ${specFile}${queued}` : `loclab run --resume ${options.resume}${queued}`;
        let summary: RunSummary;
        // A repair run's kind (the fixer, containers, evaluation) is loaded only when the folder is one.
        const { repairRunKind } = await import("@loclab/repair");
        const repairKind = repairRunKind({ onLog: progress });
        if (options.slurm && options.queue)
          throw new Error(
            "--slurm joins servers to a local run's pool; for a distributed run, start them with loclab vllm slurm submit --wait and list them in the spec",
          );
        const slurm = options.slurm ? await slurmEndpoints(options.slurm) : undefined;
        try {
          if (options.queue) {
            const { resumeDistributedRun, startDistributedRun } = await import("@loclab/queue");
            const queue = { queue: options.queue, queueName: options.queueName };
            summary = await runWithProgress(async (observe) => {
              const distributed = spec
                ? await startDistributedRun(spec, { ...observe, ...queue, command, repairKind })
                : await resumeDistributedRun(options.resume as string, { ...observe, ...queue, command, repairKind });
              const facts = distributed.queue;
              process.stdout.write(
                `queue: ${facts.queueName} (run ${facts.runId}): ${facts.enqueued} job(s) added, ${facts.committed} result(s) committed, ${facts.duplicates} duplicate execution(s), ${facts.failedJobs} failed job(s); enqueue to start median ${Math.round(facts.enqueueToStartMs.median)} ms, finish to commit median ${Math.round(facts.finishToCommitMs.median)} ms\n`,
              );
              return distributed;
            });
          } else
            summary = await runWithProgress((observe) => {
              const joining = slurm ? { joiningEndpoints: slurm.endpoints } : {};
              return spec
                ? startRun(spec, { ...observe, command, repairKind, ...joining })
                : resumeRun(options.resume as string, { ...observe, command, repairKind, ...joining });
            });
        } catch (error) {
          await slurm?.cancel();
          // A field found bad only against the benchmark (an unknown instance id) is named with its file too.
          if (error instanceof RunSpecError && error.where.startsWith("$") && specFile)
            throw new RunSpecError(`${specFile}: ${error.where}`, error.problem);
          throw error;
        }
        await slurm?.cancel();
        reportRunEnd(summary, { allowPartial: options.allowPartial ?? false });
      },
    );
  run
    .command("score")
    .description(
      "score a run: per cell the unified metrics and SHERLOC's (its evaluator), mean ± sd across seeds, each control against plain (exact McNemar, mid-p, paired bootstrap)",
    )
    .argument("<dir>", "the run folder")
    .option(
      "--metric <key...>",
      "metrics of the tables (default file.acc@1 file.acc@5 file.recall@5 module.acc@5 function.acc@5 span.coverageRecall span.precision)",
    )
    .option("--paired-metric <key>", "the binary metric of the paired tests", "file.acc@1")
    .option("--json", "print the whole result as JSON")
    .action(async (dir: string, options: { metric?: string[]; pairedMetric: string; json?: boolean }) => {
      if ((await readRunManifest(dir))?.spec.kind === "repair") {
        await printRepairScore(dir, { json: options.json ?? false, write: true });
        return;
      }
      const score = await scoreRun(dir, {
        pairedMetric: options.pairedMetric,
        ...(options.metric ? { metrics: options.metric } : {}),
      });
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify(score, (_key, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`,
        );
        return;
      }
      printRunScore(dir, score, options.pairedMetric);
    });
  run
    .command("transfer")
    .description(
      "SHERLOC's transfer analysis of a repair run: each arm against the baseline (exact McNemar, clustered bootstrap, tokens), quality bins of the judge's composite, the threshold swept; per control and framework",
    )
    .argument("<dir>", "the repair run folder")
    .option("--baseline <arm>", "the arm without a hand-off", "single")
    .option("--findings <arm>", "the arm always handed the finding (bins, sweep)", "findings")
    .option("--judged <arm>", "the arm filtered by the judge", "judged")
    .option("--resamples <n>", "bootstrap resamples", "10000")
    .option("--json", "print the reports as JSON")
    .action(
      async (
        dir: string,
        options: { baseline: string; findings: string; judged: string; resamples: string; json?: boolean },
      ) => {
        const { printTransfer } = await import("./transfer.js");
        const resamples = numericOption("resamples", options.resamples, { integer: true, min: 100 });
        await printTransfer(dir, { ...options, resamples, json: options.json ?? false });
      },
    );
  run
    .command("export")
    .description(
      "a repair run's final patches as SWE-bench predictions (instance_id, model_name_or_path, model_patch), one JSON line each, for the official harness",
    )
    .argument("<dir>", "the repair run folder")
    .option("--cell <cell>", "only this cell (e.g. seed-1/plain/single)")
    .option("--out <file>", "write the JSONL here instead of stdout")
    .action(async (dir: string, options: { cell?: string; out?: string }) => {
      const { repairExport } = await import("@loclab/repair");
      const { predictions, leftOut } = await repairExport(
        dir,
        options.cell !== undefined ? { cell: options.cell } : {},
      );
      for (const key of leftOut)
        progress(`left out ${key.cell} ${key.instanceId}: its patch met the patch limits (${key.note})`);
      const text = predictions.map((prediction) => `${JSON.stringify(prediction)}\n`).join("");
      if (options.out) {
        await writeFileAtomic(options.out, text);
        progress(`${predictions.length} prediction(s) written to ${options.out}`);
      } else process.stdout.write(text);
    });
  program
    .command("status")
    .description(summaryOf("status"))
    .argument("<dir>", "the run folder")
    .option("--json", "print the status as JSON")
    .option(
      "--repair",
      "first mend the folder: set aside a torn ledger line, rebuild each cell's predictions from the ledger",
    )
    .action(async (dir: string, options: { json?: boolean; repair?: boolean }) => {
      if (options.repair) {
        const { repairRunFolder } = await import("@loclab/runner");
        const repair = await repairRunFolder(dir);
        if (repair.torn)
          process.stderr.write(
            `attempts.jsonl:${repair.torn.line}: a torn last line was set aside in ${repair.torn.savedTo}\n`,
          );
        for (const cell of repair.rebuilt)
          process.stderr.write(
            `${cell.path}: rebuilt from the ledger (${cell.predictions} predictions; ${cell.missing.length} were missing, ${cell.dropped} lines dropped)\n`,
          );
        if (!repair.torn && repair.rebuilt.length === 0) process.stderr.write(`${dir}: nothing to repair\n`);
      }
      const status = await readRunStatus(dir);
      if (options.json) {
        const { manifest, ...rest } = status;
        process.stdout.write(
          `${JSON.stringify({ ...rest, manifest: { startedAt: manifest.startedAt, benchmark: manifest.benchmark, cells: manifest.cells, instances: manifest.instances.length } }, null, 2)}\n`,
        );
      } else process.stdout.write(`${formatRunStatus(status).join("\n")}\n`);
    });
}

/**
 * The human-readable `loclab run score`: what the keys came to (and, when no key has a
 * prediction, why, before any table), the leak audit per cell with what was found, the metrics
 * per control across seeds, and each control against plain.
 */
export function printRunScore(dir: string, score: RunScore, pairedMetric: string): void {
  const write = (line = "") => process.stdout.write(`${line}\n`);
  write(`${score.benchmark}: ${score.instanceIds.length} instances; gold: ${score.goldSource}`);
  const keys = score.attempts.reduce((sum, cell) => sum + cell.keys, 0);
  const predicted = score.attempts.reduce((sum, cell) => sum + cell.predicted, 0);
  if (predicted === 0) {
    const exits = new Map<string, number>();
    for (const cell of score.attempts)
      for (const [exit, n] of Object.entries(cell.exits)) exits.set(exit, (exits.get(exit) ?? 0) + n);
    const open = score.attempts.reduce((sum, cell) => sum + (cell.outcomes.open ?? 0), 0);
    const why = [...exits]
      .sort((a, b) => b[1] - a[1])
      .map(([exit, n]) => `${exit} ${n}`)
      .join(", ");
    write();
    write(
      `no predictions: none of the ${keys} attempt keys produced one (final exits: ${why || "none"}${open > 0 ? `; ${open} without a final outcome` : ""}); every metric below is 0.`,
    );
  }
  write();
  write("attempts per cell (final outcome of each key; exits of the final attempts):");
  printTable(
    score.attempts.map((cell) => ({
      cell: cell.cell,
      keys: cell.keys,
      predicted: cell.predicted,
      outcomes: formatCounts(cell.outcomes),
      exits: formatCounts(cell.exits),
    })),
  );
  write();
  write(
    "leak audit per cell (occurrences in the prompts the model was first given, summed over the cell's final attempts):",
  );
  printTable(score.attempts.map((cell) => ({ cell: cell.cell, audited: cell.audited, ...cell.leaks })));
  for (const cell of score.attempts) {
    if (cell.found.length > 0)
      write(`  ${cell.cell}: ${cell.found.map((entry) => `${entry.term} (${entry.attempts})`).join(", ")}`);
  }
  write();
  write("per control, across seeds (percent, mean ± sample sd):");
  const controls = [...new Set(score.acrossSeeds.map((row) => row.control))];
  const unified = score.metrics.filter((metric) => !metric.startsWith("sherloc."));
  printTable(
    controls.map((control) => ({
      control,
      ...Object.fromEntries(
        unified.map((metric) => [
          metric,
          score.acrossSeeds.find((row) => row.control === control && row.metric === metric)?.formatted ?? "",
        ]),
      ),
    })),
  );
  write();
  write(
    "beside SHERLOC: the same predictions under its evaluator (sherloc preset; percent, mean ± sample sd; recall − acc@1 in points):",
  );
  printTable(besideSherlocRows(score));
  write();
  write(`each control against plain on ${pairedMetric} (difference = control − plain, points):`);
  printTable(comparisonRows(score.comparisons));
  write();
  write(`written under ${dir}: ${score.written.join(", ")}`);
}

/** The servers of a Slurm servers file, submitted now: their endpoints as they become ready, and `cancel` (scancel). */
async function slurmEndpoints(file: string) {
  const { launchSlurmServers, readSlurmServersFile } = await import("@loclab/vllm");
  const { describeSlurmEvent } = await import("./vllm.js");
  const { dirname, resolve } = await import("node:path");
  const servers = await readSlurmServersFile(file);
  const launched = await launchSlurmServers(servers.servers, {
    dir: dirname(resolve(file)),
    job: servers.job,
    onEvent: (event) => progress(`slurm: ${describeSlurmEvent(event)}`),
  });
  const controller = new AbortController();
  async function* endpoints() {
    for await (const endpoint of launched.ready(controller.signal))
      yield { baseURL: endpoint.baseURL, model: endpoint.model, maxConcurrency: servers.maxConcurrency, weight: 1 };
  }
  let cancelled = false;
  return {
    endpoints: endpoints(),
    cancel: async () => {
      if (cancelled) return;
      cancelled = true;
      controller.abort();
      progress(`slurm: scancel ${launched.jobId}`);
      await launched.cancel();
    },
  };
}
