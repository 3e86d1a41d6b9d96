import { existsSync } from "node:fs";
import { appendFile, mkdir, rename } from "node:fs/promises";
import { join, relative } from "node:path";
import { createModelClient, type LocalizeOutcome, localizeInstance, type ToolMode, urlWithoutCredentials } from "@loclab/agent";
import { knownFilesFromInstance, maskIssuePaths } from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";
import { type Instance, instanceFile, pathInside, PredictionRecordSchema, readJsonl, RUN_RECORD_KIND, type RunRecord, RunRecordSchema, SCHEMA_VERSION, stampRecord } from "@loclab/schemas";
import type { z } from "zod";
import { materializeWorkspace } from "@loclab/tools";
import { type Command, Option } from "commander";
import { numericOption } from "../numeric-option.js";
import { repairTornTail } from "../jsonl-tail.js";
import { acquireOutputLock } from "../output-lock.js";
import { progress } from "../progress.js";
import { provenanceNow } from "../provenance.js";

interface LocalizeCommandOptions {
  benchmark: string;
  instances?: string;
  repos: string;
  endpoint: string;
  model: string;
  toolMode: ToolMode;
  maskPaths?: boolean;
  seed?: string;
  maxTurns: string;
  temperature?: string;
  maxTokens?: string;
  requestTimeout: string;
  callDeadline: string;
  allowPartial?: boolean;
  apiKeyEnv?: string;
  out: string;
  dataDir?: string;
}

/** The instances to run: all, or those of `--instances` in the benchmark's order; an unknown id is an error. */
function selectInstances(all: readonly Instance[], list: string | undefined): Instance[] {
  if (list === undefined) return [...all];
  const wanted = new Set(list.split(",").map((id) => id.trim()).filter((id) => id !== ""));
  const known = new Set(all.map((instance) => instance.instance_id));
  const unknown = [...wanted].filter((id) => !known.has(id));
  if (unknown.length > 0) throw new Error(`--instances: not in the benchmark: ${unknown.join(", ")}`);
  return all.filter((instance) => wanted.has(instance.instance_id));
}

/**
 * The records of a JSONL file the run itself appends to (predictions, run records), read with
 * the schemas' JSONL reader: a line that does not fit is reported with file and line and
 * skipped (that instance runs again); the torn tail of a crash was repaired before.
 */
async function ownRecords<T>(path: string, schema: z.ZodType<T, unknown>): Promise<T[]> {
  if (!existsSync(path)) return [];
  const { records, skipped } = await readJsonl(path, { schema, onBadLine: "skip" });
  for (const bad of skipped) progress(`${bad.message}; skipped`);
  return records.map((record) => record.value);
}

/**
 * `loclab localize`: runs the structured diagnostic localizer (docs/definitions.md §1) over a
 * benchmark against an OpenAI-compatible endpoint. Per instance: materialize the repository at
 * its base commit from the local mirrors (cache: `<out>/.workspaces`), optionally mask the
 * issue text, run `localizeInstance`, write `<out>/trajectories/<id>.traj.jsonl`, append the
 * stamped prediction to `<out>/predictions.jsonl` and a run record of the attempt to
 * `<out>/runs.jsonl` as soon as the instance ends. Instances already in `predictions.jsonl` are
 * skipped, so rerunning after a crash resumes; a failed instance runs again, its earlier
 * trajectory kept as `<out>/attempts/<id>/attempt-<n>.jsonl`. One run at a time per folder
 * (`<out>/.loclab.lock`). Exit code 1 when any instance failed (unless `--allow-partial` and
 * at least one succeeded), with the count on stderr.
 */
export function registerLocalizeCommand(program: Command): void {
  program
    .command("localize")
    .description("run the structured diagnostic localizer over a benchmark against a model endpoint (docs/definitions.md §1)")
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .option("--instances <ids>", "comma-separated instance ids (default: all)")
    .requiredOption("--repos <dir>", "folder of git mirrors, one per repository (<owner>__<name>[.git])")
    .requiredOption("--endpoint <url>", "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    .requiredOption("--model <name>", "the model name sent to the endpoint")
    .addOption(new Option("--tool-mode <mode>", "native tool calls, or ```json blocks in the text").choices(["native", "text"]).default("native"))
    .option("--mask-paths", "mask file paths and dotted module paths in the issue text (known files from the instance's patches)")
    .option("--seed <n>", "sampling seed sent to the endpoint")
    .option("--max-turns <n>", "model calls per instance", "20")
    .option("--temperature <t>", "sampling temperature sent to the endpoint (default: the server's)")
    .option("--max-tokens <n>", "output tokens per model call (max_tokens; default: the server's)")
    .option("--request-timeout <seconds>", "per model request, the whole answer included", "300")
    .option("--call-deadline <seconds>", "per model call, retries and waits included", "900")
    .option("--allow-partial", "exit 0 when some instances failed but at least one succeeded")
    .option("--api-key-env <name>", "environment variable holding the API key (default OPENAI_API_KEY)")
    .requiredOption("-o, --out <dir>", "output folder: predictions.jsonl, runs.jsonl, trajectories/, attempts/, .workspaces/")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: LocalizeCommandOptions) => {
      const maxTurns = numericOption("max-turns", options.maxTurns, { integer: true, min: 1 });
      const seed = options.seed === undefined ? undefined : numericOption("seed", options.seed, { integer: true, min: 0 });
      const temperature = options.temperature === undefined ? undefined : numericOption("temperature", options.temperature, { min: 0, max: 2 });
      const maxTokens = options.maxTokens === undefined ? undefined : numericOption("max-tokens", options.maxTokens, { integer: true, min: 1 });
      const requestTimeoutMs = numericOption("request-timeout", options.requestTimeout, { min: 0, exclusiveMin: true }) * 1000;
      const callDeadlineMs = numericOption("call-deadline", options.callDeadline, { min: 0, exclusiveMin: true }) * 1000;
      const { counts, selected, predictionsPath, failed, succeeded } = await runLocalization({
        benchmark: options.benchmark,
        ...(options.instances ? { instances: options.instances } : {}),
        repos: options.repos,
        endpoint: options.endpoint,
        model: options.model,
        toolMode: options.toolMode,
        maskPaths: options.maskPaths ?? false,
        ...(seed !== undefined ? { seed } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        requestTimeoutMs,
        callDeadlineMs,
        maxTurns,
        ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
        out: options.out,
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      });
      const summary = [...counts.entries()].map(([key, n]) => `${key} ${n}`).join(", ");
      process.stdout.write(`localize: ${selected} instance(s): ${summary || "none"}\npredictions: ${predictionsPath}\n`);
      if (failed > 0 && (succeeded === 0 || !options.allowPartial)) {
        throw new Error(
          succeeded === 0
            ? `localize: every instance that ran failed (${failed}); see the lines above and the trajectories`
            : `localize: ${failed} of ${failed + succeeded} instance(s) failed; rerun the same command to retry them, or pass --allow-partial to accept the rest`,
        );
      }
    });
}

/** What `loclab localize` (and the reproduce demo) needs to run. */
export interface RunLocalizationOptions {
  benchmark: string;
  instances?: string;
  repos: string;
  endpoint: string;
  model: string;
  toolMode: "native" | "text";
  maskPaths: boolean;
  seed?: number;
  temperature?: number;
  maxTokens?: number;
  requestTimeoutMs?: number;
  callDeadlineMs?: number;
  maxTurns: number;
  apiKeyEnv?: string;
  out: string;
  dataDir?: string;
}

type CountKey = LocalizeOutcome | "failed" | "skipped";

/**
 * The localizer over a benchmark (docs/definitions.md §1): per instance, the workspace from its
 * mirror, the (optionally masked) issue, `localizeInstance`, the trajectory, the prediction and
 * the attempt's run record appended as soon as the instance ends; instances already in
 * predictions.jsonl are skipped, a failing instance is reported and the run goes on.
 */
export async function runLocalization(options: RunLocalizationOptions): Promise<{ counts: Map<CountKey, number>; selected: number; predictionsPath: string; failed: number; succeeded: number }> {
  const { maxTurns, seed } = options;
  const benchmark = await loadBenchmark(options.benchmark, options.dataDir ? { dataDir: options.dataDir } : {});
  const selected = selectInstances(benchmark.instances, options.instances);
  const endpoint = urlWithoutCredentials(options.endpoint);
  const client = createModelClient({
    baseURL: options.endpoint,
    model: options.model,
    ...(seed !== undefined ? { seed } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxTokens !== undefined ? { maxOutputTokens: options.maxTokens } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.callDeadlineMs !== undefined ? { callDeadlineMs: options.callDeadlineMs } : {}),
    ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
    onProgress: (event) =>
      progress(event.kind === "waiting" ? `waiting for the model (attempt ${event.attempt}, ${Math.round(event.elapsedMs / 1000)} s so far)` : `model call failed (${event.retry.error}: ${event.retry.message}); retrying in ${(event.retry.waitedMs / 1000).toFixed(1)} s`),
  });
  await mkdir(join(options.out, "trajectories"), { recursive: true });
  const lock = await acquireOutputLock(options.out, `loclab localize --benchmark ${options.benchmark}`);
  if (lock.tookOver) progress(`${options.out}: ${lock.tookOver}`);
  try {
    const predictionsPath = join(options.out, "predictions.jsonl");
    const runsPath = join(options.out, "runs.jsonl");
    for (const file of [predictionsPath, runsPath]) {
      const torn = await repairTornTail(file);
      if (torn) progress(`${file}:${torn.line}: a torn last line (${torn.bytes} bytes, from a crash) was set aside in ${torn.savedTo}`);
    }
    const done = new Set((await ownRecords(predictionsPath, PredictionRecordSchema)).map((prediction) => prediction.instanceId));
    const attempts = new Map<string, number>();
    for (const run of await ownRecords(runsPath, RunRecordSchema)) attempts.set(run.instanceId, Math.max(attempts.get(run.instanceId) ?? 0, run.attempt));
    const counts = new Map<CountKey, number>();
    const count = (key: CountKey) => counts.set(key, (counts.get(key) ?? 0) + 1);
    let failed = 0;
    let succeeded = 0;
    progress(`localize: ${selected.length} instance(s) of ${benchmark.name}, model ${options.model}, tool mode ${options.toolMode}${options.maskPaths ? ", paths masked" : ""}`);

    for (const [position, instance] of selected.entries()) {
      const id = instance.instance_id;
      const tag = `[${position + 1}/${selected.length}] ${id}`;
      if (done.has(id)) {
        progress(`${tag}: already in predictions.jsonl, skipped`);
        count("skipped");
        continue;
      }
      const trajectoryPath = instanceFile(join(options.out, "trajectories"), id, ".traj.jsonl");
      const attempt = (attempts.get(id) ?? 0) + 1;
      if (existsSync(trajectoryPath)) {
        // An earlier attempt (failed, or cut short by a crash) is kept, never overwritten.
        const kept = pathInside(options.out, "attempts", id, `attempt-${attempt - 1 || "crashed"}.jsonl`);
        await mkdir(join(options.out, "attempts", id), { recursive: true });
        await rename(trajectoryPath, existsSync(kept) ? `${kept}.${Date.now()}` : kept);
      }
      const startedAt = new Date().toISOString();
      const started = performance.now();
      const record = (fields: Pick<RunRecord, "outcome" | "exit" | "turns" | "usage" | "predicted"> & { error?: string; trajectory: string | null }): RunRecord => ({
        kind: RUN_RECORD_KIND,
        schemaVersion: SCHEMA_VERSION,
        instanceId: id,
        attempt,
        seed: seed ?? null,
        control: options.maskPaths ? "masked:modules" : "plain",
        endpoint: { baseURL: endpoint, model: options.model },
        ...fields,
        startedAt,
        endedAt: new Date().toISOString(),
      });
      let run: RunRecord;
      try {
        const workspace = await materializeWorkspace({ instance, mirrors: options.repos, cacheDir: join(options.out, ".workspaces") });
        const problemStatement = options.maskPaths
          ? maskIssuePaths(instance.problem_statement, { knownFiles: knownFilesFromInstance(instance), level: "modules" }).text
          : instance.problem_statement;
        const result = await localizeInstance({
          instance: { instance_id: id, problem_statement: problemStatement },
          workspace,
          client,
          maxTurns,
          toolMode: options.toolMode,
          trajectoryPath,
          provenance: provenanceNow({ benchmark: options.benchmark, endpoint, model: options.model, toolMode: options.toolMode, maskPaths: options.maskPaths, seed: seed ?? null, maxTurns, attempt }),
        });
        count(result.outcome);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        if (result.prediction) {
          succeeded += 1;
          await appendFile(predictionsPath, `${JSON.stringify(stampRecord(result.prediction))}\n`, "utf8");
          progress(`${tag}: ${result.outcome} in ${result.turns} turn(s), ${seconds} s: ${result.prediction.files.slice(0, 3).join(", ")}`);
        } else {
          failed += 1;
          progress(`${tag}: failed: ${result.outcome}${result.budget ? ` (${result.budget})` : ""}${result.error ? `: ${result.error}` : ""}, ${result.turns} turn(s), ${seconds} s`);
        }
        run = record({
          outcome: result.outcome,
          exit: result.prediction ? "submitted" : null,
          turns: result.turns,
          usage: result.usage,
          predicted: result.prediction !== undefined,
          trajectory: relative(options.out, trajectoryPath),
          ...(result.error ? { error: result.error } : {}),
        });
      } catch (error) {
        failed += 1;
        count("failed");
        const message = error instanceof Error ? error.message : String(error);
        progress(`${tag}: failed: ${message}`);
        run = record({ outcome: "failed", exit: null, turns: 0, usage: {}, predicted: false, trajectory: existsSync(trajectoryPath) ? relative(options.out, trajectoryPath) : null, error: message });
      }
      await appendFile(runsPath, `${JSON.stringify(RunRecordSchema.parse(run))}\n`, "utf8");
    }
    return { counts, selected: selected.length, predictionsPath, failed, succeeded };
  } finally {
    await lock.release();
  }
}
