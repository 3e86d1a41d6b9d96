import type { Command } from "commander";
import { summaryOf } from "../command-summaries.js";
import { numericOption } from "../numeric-option.js";
import { progress } from "../progress.js";

/**
 * `loclab worker --queue redis://HOST:PORT`: a worker of distributed runs
 * (docs/guide/distributed-runs.md). It runs until Ctrl-C or SIGTERM, then finishes the
 * attempts in flight and exits 0; a second signal quits at once (its jobs stall and run
 * elsewhere).
 */
export function registerWorkerCommand(program: Command): void {
  program
    .command("worker")
    .description(summaryOf("worker"))
    .requiredOption("--queue <url>", "the Redis of the queue, redis://HOST:PORT (password in LOCLAB_REDIS_PASSWORD)")
    .option("--queue-name <name>", "the queue's name (the coordinator's --queue-name)", "loclab-attempts")
    .option(
      "--concurrency <n>",
      "attempts at once on this machine (each also needs a free endpoint slot, run-wide)",
      "1",
    )
    .option("--repos <dir>", "this machine's folder of git mirrors, when not the coordinator's path")
    .option("--data-dir <dir>", "this machine's shared data folder (bundled benchmarks)")
    .option("--benchmark <file>", "this machine's copy of the benchmark file, when the spec names a file")
    .option("--cache-dir <dir>", "this machine's workspace cache")
    .option(
      "--work-dir <dir>",
      "where this worker keeps its own copy of each run's files (default ~/.cache/loclab/worker)",
    )
    .option(
      "--lock-seconds <s>",
      "a job's lock without renewal: longer than any step that blocks the event loop (a stalled job runs again elsewhere)",
      "120",
    )
    .option("--stalled-seconds <s>", "how often stalled jobs are looked for", "30")
    .action(
      async (options: {
        queue: string;
        queueName: string;
        concurrency: string;
        repos?: string;
        dataDir?: string;
        benchmark?: string;
        cacheDir?: string;
        workDir?: string;
        lockSeconds: string;
        stalledSeconds: string;
      }) => {
        const { runWorker } = await import("@loclab/queue");
        const { repairRunKind } = await import("@loclab/repair");
        const concurrency = numericOption("--concurrency", options.concurrency, { integer: true, min: 1 });
        const lockMs = numericOption("--lock-seconds", options.lockSeconds, { min: 1 }) * 1000;
        const stalledIntervalMs = numericOption("--stalled-seconds", options.stalledSeconds, { min: 1 }) * 1000;
        const controller = new AbortController();
        const stop = (signal: string) => {
          if (controller.signal.aborted) process.exit(130);
          progress(`worker: ${signal}: finishing the attempts in flight (again to quit now: their jobs run elsewhere)`);
          controller.abort();
        };
        process.on("SIGINT", () => stop("SIGINT"));
        process.on("SIGTERM", () => stop("SIGTERM"));
        const summary = await runWorker({
          queue: options.queue,
          queueName: options.queueName,
          concurrency,
          lockMs,
          stalledIntervalMs,
          repairKind: repairRunKind({ onLog: progress }),
          overrides: {
            ...(options.repos ? { repos: options.repos } : {}),
            ...(options.dataDir ? { dataDir: options.dataDir } : {}),
            ...(options.benchmark ? { benchmark: options.benchmark } : {}),
            ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
          },
          ...(options.workDir ? { workDir: options.workDir } : {}),
          signal: controller.signal,
          onEvent: (event) => {
            switch (event.type) {
              case "ready":
                progress(`worker ${event.worker}: taking jobs from ${event.queueName}, ${event.concurrency} at once`);
                return;
              case "job-start":
                progress(`start ${event.cell} ${event.instanceId} attempt ${event.attempt}`);
                return;
              case "job-end":
                progress(
                  `end ${event.key.slice(0, 12)}… attempt ${event.attempt}: ${event.outcome}${event.willRetry ? " (tried again)" : ""} in ${event.seconds.toFixed(1)} s`,
                );
                return;
              case "job-failed":
                progress(`job ${event.jobId} failed: ${event.error}`);
                return;
              case "redis":
                progress(event.state === "down" ? `Redis is away (${event.detail}); waiting` : "Redis is back");
                return;
              case "note":
                progress(event.message);
                return;
            }
          },
        });
        const outcomes = Object.entries(summary.byOutcome)
          .map(([outcome, n]) => `${outcome} ${n}`)
          .join(", ");
        process.stdout.write(
          `worker ${summary.worker}: ${summary.executions} attempt(s) run${outcomes ? ` (${outcomes})` : ""}\n`,
        );
      },
    );
}
