import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createModelClient, type LocalizeOutcome, localizeInstance, type ToolMode } from "@loclab/agent";
import { knownFilesFromInstance, maskIssuePaths } from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";
import { type Instance, stampRecord } from "@loclab/schemas";
import { materializeWorkspace } from "@loclab/tools";
import { type Command, Option } from "commander";
import { numericOption } from "../numeric-option.js";
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

/** Instance ids already in a predictions file, so that a rerun after a crash does not repeat them. */
async function donePredictions(path: string): Promise<Set<string>> {
  const done = new Set<string>();
  if (!existsSync(path)) return done;
  for (const line of (await readFile(path, "utf8")).split("\n")) {
    if (line.trim() === "") continue;
    try {
      const id = (JSON.parse(line) as { instanceId?: unknown }).instanceId;
      if (typeof id === "string") done.add(id);
    } catch {
      // A torn last line (crash mid-write) is ignored; that instance runs again.
    }
  }
  return done;
}

/**
 * `loclab localize`: runs the structured diagnostic localizer (docs/definitions.md §1) over a benchmark
 * against an OpenAI-compatible endpoint. Per instance: materialize the repository at its base
 * commit from the local mirrors (cache: `<out>/.workspaces`), optionally mask file paths in the
 * issue text (level `paths`, known files from the instance's patches), run `localizeInstance`,
 * write `<out>/trajectories/<id>.traj.jsonl`, and append the stamped prediction to
 * `<out>/predictions.jsonl` as soon as the instance finishes. Instances already in
 * `predictions.jsonl` are skipped, so rerunning after a crash resumes. An instance that fails
 * (error, or an outcome without a prediction) is reported on stderr with its id; the run goes
 * on. At the end, the outcome counts are printed on stdout.
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
    .option("--mask-paths", "mask file paths in the issue text (known files from the instance's patches)")
    .option("--seed <n>", "sampling seed sent to the endpoint")
    .option("--max-turns <n>", "model calls per instance", "20")
    .option("--api-key-env <name>", "environment variable holding the API key (default OPENAI_API_KEY)")
    .requiredOption("-o, --out <dir>", "output folder: predictions.jsonl, trajectories/, .workspaces/")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: LocalizeCommandOptions) => {
      const maxTurns = numericOption("max-turns", options.maxTurns, { integer: true, min: 1 });
      const seed = options.seed === undefined ? undefined : numericOption("seed", options.seed, { integer: true, min: 0 });
      const { counts, selected, predictionsPath } = await runLocalization({
        benchmark: options.benchmark,
        ...(options.instances ? { instances: options.instances } : {}),
        repos: options.repos,
        endpoint: options.endpoint,
        model: options.model,
        toolMode: options.toolMode,
        maskPaths: options.maskPaths ?? false,
        ...(seed !== undefined ? { seed } : {}),
        maxTurns,
        ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
        out: options.out,
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      });
      const summary = [...counts.entries()].map(([key, n]) => `${key} ${n}`).join(", ");
      process.stdout.write(`localize: ${selected} instance(s): ${summary || "none"}\npredictions: ${predictionsPath}\n`);
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
  maxTurns: number;
  apiKeyEnv?: string;
  out: string;
  dataDir?: string;
}

/**
 * The localizer over a benchmark (docs/definitions.md §1): per instance, the workspace from its mirror,
 * the (optionally masked) issue, `localizeInstance`, the trajectory, and the prediction
 * appended as soon as the instance finishes; instances already in predictions.jsonl are
 * skipped, a failing instance is reported and the run goes on.
 */
export async function runLocalization(options: RunLocalizationOptions): Promise<{ counts: Map<LocalizeOutcome | "failed" | "skipped", number>; selected: number; predictionsPath: string }> {
  const { maxTurns, seed } = options;
  const benchmark = await loadBenchmark(options.benchmark, options.dataDir ? { dataDir: options.dataDir } : {});
  const selected = selectInstances(benchmark.instances, options.instances);
  const client = createModelClient({
    baseURL: options.endpoint,
    model: options.model,
    ...(seed !== undefined ? { seed } : {}),
    ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
  });
  await mkdir(join(options.out, "trajectories"), { recursive: true });
  const predictionsPath = join(options.out, "predictions.jsonl");
  const done = await donePredictions(predictionsPath);
  const counts = new Map<LocalizeOutcome | "failed" | "skipped", number>();
  const count = (key: LocalizeOutcome | "failed" | "skipped") => counts.set(key, (counts.get(key) ?? 0) + 1);
  progress(`localize: ${selected.length} instance(s) of ${benchmark.name}, model ${options.model}, tool mode ${options.toolMode}${options.maskPaths ? ", paths masked" : ""}`);

  for (const [position, instance] of selected.entries()) {
    const id = instance.instance_id;
    const tag = `[${position + 1}/${selected.length}] ${id}`;
    if (done.has(id)) {
      progress(`${tag}: already in predictions.jsonl, skipped`);
      count("skipped");
      continue;
    }
    const started = performance.now();
    try {
      const workspace = await materializeWorkspace({ instance, mirrors: options.repos, cacheDir: join(options.out, ".workspaces") });
      const problemStatement = options.maskPaths
        ? maskIssuePaths(instance.problem_statement, { knownFiles: knownFilesFromInstance(instance), level: "paths" }).text
        : instance.problem_statement;
      const result = await localizeInstance({
        instance: { instance_id: id, problem_statement: problemStatement },
        workspace,
        client,
        maxTurns,
        toolMode: options.toolMode,
        trajectoryPath: join(options.out, "trajectories", `${id}.traj.jsonl`),
        provenance: provenanceNow({ benchmark: options.benchmark, endpoint: options.endpoint, model: options.model, toolMode: options.toolMode, maskPaths: options.maskPaths, seed: seed ?? null, maxTurns }),
      });
      count(result.outcome);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (result.prediction) {
        await appendFile(predictionsPath, `${JSON.stringify(stampRecord(result.prediction))}\n`, "utf8");
        progress(`${tag}: ${result.outcome} in ${result.turns} turn(s), ${seconds} s: ${result.prediction.files.slice(0, 3).join(", ")}`);
      } else {
        progress(`${tag}: failed: ${result.outcome}${result.budget ? ` (${result.budget})` : ""}${result.error ? `: ${result.error}` : ""}, ${result.turns} turn(s), ${seconds} s`);
      }
    } catch (error) {
      count("failed");
      progress(`${tag}: failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { counts, selected: selected.length, predictionsPath };
}
