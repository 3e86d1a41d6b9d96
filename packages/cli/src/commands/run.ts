import { formatRunStatus, loadRunSpec, RunSpecError, readRunStatus, resumeRun, type RunSpec, type RunSummary, scoreRun, startRun, terminalProgress } from "@loclab/runner";
import type { Command } from "commander";
import { summaryOf } from "../command-summaries.js";

/** What a run's end says on stderr and what the exit code is: 0 only when every attempt key has a final outcome. */
export function reportRunEnd(summary: RunSummary, options: { allowPartial?: boolean } = {}): void {
  const missing = Object.entries(summary.noPrediction).map(([reason, n]) => `${reason} ${n}`).join(", ");
  const outcomes = Object.entries(summary.outcomes).map(([outcome, n]) => `${outcome} ${n}`).join(", ");
  process.stdout.write(
    `run: ${summary.dir}\n` +
      `keys: ${summary.keys}, done ${summary.done}, with a prediction ${summary.predicted}${outcomes ? ` (${outcomes})` : ""}\n` +
      `this session: ${summary.attemptsThisSession} attempt(s), ${summary.failuresThisSession} infrastructure or harness failure(s), ${summary.retriesThisSession} retried request(s)\n` +
      (missing ? `no prediction: ${missing}\n` : ""),
  );
  if (summary.complete) return;
  const why = summary.stoppedBy ? ` (stopped: ${summary.stoppedBy})` : "";
  if (options.allowPartial && summary.predicted > 0) return;
  throw new Error(`${summary.keys - summary.done} of ${summary.keys} attempt key(s) have no final outcome${why}; continue with: loclab run --resume ${summary.dir}`);
}

/** Runs with the terminal progress display and Ctrl-C as a graceful stop (a second Ctrl-C quits at once). */
export async function runWithProgress(run: (options: { onEvent: (event: Parameters<ReturnType<typeof terminalProgress>["onEvent"]>[0]) => void; signal: AbortSignal }) => Promise<RunSummary>): Promise<RunSummary> {
  const display = terminalProgress();
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write("loclab: stopping after the attempts in flight (Ctrl-C again to quit now; the run resumes either way)\n");
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
    .action(async (specFile: string | undefined, options: { resume?: string; allowPartial?: boolean }) => {
      if ((specFile === undefined) === (options.resume === undefined)) throw new Error("give a run spec (loclab run SPEC) or --resume DIR, not both and not neither");
      let spec: RunSpec | undefined;
      if (specFile) spec = await loadRunSpec(specFile);
      const command = specFile ? `loclab run ${specFile}` : `loclab run --resume ${options.resume}`;
      let summary: RunSummary;
      try {
        summary = await runWithProgress((observe) => (spec ? startRun(spec, { ...observe, command }) : resumeRun(options.resume as string, { ...observe, command })));
      } catch (error) {
        // A field found bad only against the benchmark (an unknown instance id) is named with its file too.
        if (error instanceof RunSpecError && error.where.startsWith("$") && specFile) throw new RunSpecError(`${specFile}: ${error.where}`, error.problem);
        throw error;
      }
      reportRunEnd(summary, { allowPartial: options.allowPartial ?? false });
    });
  run
    .command("score")
    .description("score a run: per cell the unified metrics, mean ± sd across seeds, each control against plain (exact McNemar, mid-p, paired bootstrap)")
    .argument("<dir>", "the run folder")
    .option("--metric <key...>", "metrics of the tables (default file.acc@1 file.acc@5 file.recall@5 module.acc@5 function.acc@5 span.coverageRecall span.precision)")
    .option("--paired-metric <key>", "the binary metric of the paired tests", "file.acc@1")
    .option("--json", "print the whole result as JSON")
    .action(async (dir: string, options: { metric?: string[]; pairedMetric: string; json?: boolean }) => {
      const score = await scoreRun(dir, { pairedMetric: options.pairedMetric, ...(options.metric ? { metrics: options.metric } : {}) });
      if (options.json) {
        process.stdout.write(`${JSON.stringify(score, (_key, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`);
        return;
      }
      const lines: string[] = [`${score.benchmark}: ${score.instanceIds.length} instances; gold: ${score.goldSource}`, "", "per control, across seeds (percent, mean ± sample sd):"];
      const metrics = score.metrics;
      const controls = [...new Set(score.acrossSeeds.map((row) => row.control))];
      const width = Math.max(8, ...controls.map((control) => control.length));
      lines.push(`  ${"control".padEnd(width)}  ${metrics.map((metric) => metric.padStart(18)).join("")}`);
      for (const control of controls) {
        lines.push(`  ${control.padEnd(width)}  ${metrics.map((metric) => (score.acrossSeeds.find((row) => row.control === control && row.metric === metric)?.formatted ?? "").padStart(18)).join("")}`);
      }
      lines.push("", `each control against plain on ${options.pairedMetric} (difference = control − plain):`);
      for (const row of score.comparisons) {
        lines.push(`  ${row.control.padEnd(width)}  seed ${String(row.seed ?? "none").padEnd(6)}  ${(row.difference >= 0 ? "+" : "") + (100 * row.difference).toFixed(2)} pts [${(100 * row.lower).toFixed(2)}, ${(100 * row.upper).toFixed(2)}]  b=${row.b} c=${row.c}  p=${row.p.toPrecision(3)}  mid-p=${row.midP.toPrecision(3)}  (${row.pairs} pairs)`);
      }
      lines.push("", `written under ${dir}: ${score.written.join(", ")}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
  program
    .command("status")
    .description(summaryOf("status"))
    .argument("<dir>", "the run folder")
    .option("--json", "print the status as JSON")
    .action(async (dir: string, options: { json?: boolean }) => {
      const status = await readRunStatus(dir);
      if (options.json) {
        const { manifest, ...rest } = status;
        process.stdout.write(`${JSON.stringify({ ...rest, manifest: { startedAt: manifest.startedAt, benchmark: manifest.benchmark, cells: manifest.cells, instances: manifest.instances.length } }, null, 2)}\n`);
      } else process.stdout.write(`${formatRunStatus(status).join("\n")}\n`);
    });
}
