import { localizeSpec, type RunSummary, startRun } from "@loclab/runner";
import { type Command, Option } from "commander";
import { numericOption } from "../numeric-option.js";
import { reportRunEnd, runWithProgress } from "./run.js";
import { summaryOf } from "../command-summaries.js";
import { parseIdList } from "../instance-ids.js";

interface LocalizeCommandOptions {
  benchmark: string;
  instances?: string;
  repos: string;
  endpoint: string;
  model: string;
  toolMode: "native" | "text";
  profile: "loclab" | "sherloc";
  maskPaths?: boolean;
  seed?: string;
  maxTurns: string;
  temperature?: string;
  maxTokens?: string;
  requestTimeout: string;
  callDeadline: string;
  concurrency: string;
  backoff: string;
  allowPartial?: boolean;
  apiKeyEnv?: string;
  out: string;
  dataDir?: string;
}

/**
 * `loclab localize`: the structured diagnostic localizer (docs/definitions.md §1) over a
 * benchmark against one OpenAI-compatible endpoint, as a one-cell run (docs/definitions.md
 * §8): `--out` becomes a run folder (manifest.json, attempts.jsonl, cells/…/predictions.jsonl,
 * trajectories/), rerunning the same command continues it, `loclab status` and `loclab run
 * score` read it. Exit code 1 when some instance has no final outcome (an endpoint or the
 * harness failed), unless `--allow-partial` and at least one has a prediction.
 */
export function registerLocalizeCommand(program: Command): void {
  program
    .command("localize")
    .description(summaryOf("localize"))
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .option("--instances <ids>", "comma-separated instance ids (default: all)")
    .requiredOption("--repos <dir>", "folder of git mirrors, one per repository (<owner>__<name>[.git])")
    .requiredOption("--endpoint <url>", "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    .requiredOption("--model <name>", "the model name sent to the endpoint (must be listed by its /v1/models)")
    .addOption(
      new Option("--tool-mode <mode>", "native tool calls, or ```json blocks in the text")
        .choices(["native", "text"])
        .default("native"),
    )
    .addOption(
      new Option(
        "--profile <profile>",
        "loclab's localizer, or SHERLOC's protocol, tools and settings (<tool_call> blocks, a <locations> answer)",
      )
        .choices(["loclab", "sherloc"])
        .default("loclab"),
    )
    .option(
      "--mask-paths",
      "the masked control: file paths and dotted module paths masked in the issue text (against the base commit's full file list)",
    )
    .option("--seed <n>", "sampling seed sent to the endpoint")
    .option("--max-turns <n>", "model calls per instance", "20")
    .option("--temperature <t>", "sampling temperature sent to the endpoint (default: the server's)")
    .option("--max-tokens <n>", "output tokens per model call (max_tokens; default: the server's)")
    .option("--request-timeout <seconds>", "per model request, the whole answer included", "300")
    .option("--call-deadline <seconds>", "per model call, retries and waits included", "900")
    .option("--concurrency <n>", "instances in flight at once on the endpoint", "1")
    .option("--backoff <seconds>", "wait before the first retry of a failed request (doubling, with jitter)", "1")
    .option("--allow-partial", "exit 0 when some instances have no final outcome but at least one has a prediction")
    .option("--api-key-env <name>", "environment variable holding the API key (default OPENAI_API_KEY)")
    .requiredOption("-o, --out <dir>", "the run folder")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: LocalizeCommandOptions) => {
      const spec = localizeSpec({
        benchmark: options.benchmark,
        ...(options.instances ? { instances: parseIdList(options.instances) } : {}),
        repos: options.repos,
        endpoint: options.endpoint,
        model: options.model,
        toolMode: options.toolMode,
        profile: options.profile,
        maskPaths: options.maskPaths ?? false,
        ...(options.seed !== undefined ? { seed: numericOption("seed", options.seed, { integer: true, min: 0 }) } : {}),
        ...(options.temperature !== undefined
          ? { temperature: numericOption("temperature", options.temperature, { min: 0, max: 2 }) }
          : {}),
        ...(options.maxTokens !== undefined
          ? { maxTokens: numericOption("max-tokens", options.maxTokens, { integer: true, min: 1 }) }
          : {}),
        requestTimeoutSeconds: numericOption("request-timeout", options.requestTimeout, { min: 0, exclusiveMin: true }),
        callDeadlineSeconds: numericOption("call-deadline", options.callDeadline, { min: 0, exclusiveMin: true }),
        maxTurns: numericOption("max-turns", options.maxTurns, { integer: true, min: 1 }),
        concurrency: numericOption("concurrency", options.concurrency, { integer: true, min: 1 }),
        backoffSeconds: numericOption("backoff", options.backoff, { min: 0 }),
        ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
        out: options.out,
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      });
      const summary: RunSummary = await runWithProgress((observe) =>
        startRun(spec, { ...observe, command: `loclab localize --benchmark ${options.benchmark}` }),
      );
      reportRunEnd(summary, { allowPartial: options.allowPartial ?? false });
    });
}
