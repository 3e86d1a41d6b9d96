import { resolve } from "node:path";
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";
import { listedInstances, parseIdList } from "../instance-ids.js";
import { registerEvaluateImagesCommand } from "./evaluate-images.js";

interface EvaluateOptions {
  predictions: string;
  benchmark: string;
  runId: string;
  repos?: string;
  images?: string;
  concurrency: string;
  buildConcurrency: string;
  resolvedAsOf: string;
  timeout: string;
  out: string;
  cache: boolean;
  cacheDir?: string;
  specs?: string;
  harnessEnvironments?: string;
  pythonPrefix: string[];
  validations?: string;
  instances?: string;
  namespace: string;
  tag: string;
  pull: boolean;
  memory?: string;
  processes?: string;
  cpus?: string;
  logMib?: string;
  minFreeGib?: string;
  runEmpty?: boolean;
  json?: boolean;
  dataDir?: string;
}

interface CalibrateCliOptions extends Omit<EvaluateOptions, "predictions" | "cache" | "cacheDir" | "runEmpty"> {
  goldRuns: string;
}

async function loadInstances(
  benchmark: string,
  dataDir: string | undefined,
  only: string | undefined,
  flag = "--instances",
) {
  const { loadBenchmark } = await import("@loclab/datasets");
  const { instances } = await loadBenchmark(benchmark, dataDir ? { dataDir } : {});
  if (!only) return instances;
  return listedInstances(instances, parseIdList(only), { flag, benchmark });
}

async function readSpecs(file: string | undefined) {
  if (!file) return undefined;
  const { readSpecsFile } = await import("@loclab/evaluation");
  return readSpecsFile(file);
}

/** --resolved-as-of, checked before any work (the builds read it much later). */
async function checkResolvedAsOf(when: string): Promise<void> {
  const { isResolvedAsOf } = await import("@loclab/evaluation");
  if (!isResolvedAsOf(when))
    throw new Error(`--resolved-as-of: "${when}" is not harness, now or an ISO date such as 2024-10-01T00:00:00Z`);
}

/**
 * The base Pythons with the local ones given (`--python-prefix`): each read by running it, put
 * first so that a local 3.11 is preferred to bookworm's; none given, the default bases.
 */
async function localPythons(prefixes: readonly string[]) {
  if (prefixes.length === 0) return {};
  const { localPythonBase, PYTHON_BASES, readLocalPython } = await import("@loclab/evaluation");
  const local = prefixes.map((prefix) => localPythonBase(readLocalPython(resolve(prefix))));
  for (const base of local)
    progress(`local Python ${base.local!.version} from ${base.local!.prefix} (in ${base.suite}'s root)`);
  return { pythonBases: [...local, ...PYTHON_BASES] };
}

function commonOptions(options: Omit<EvaluateOptions, "predictions" | "cache" | "runEmpty">) {
  const images = options.images ?? (options.repos ? "local" : "prebuilt");
  if (images !== "local" && images !== "prebuilt")
    throw new Error(`--images: ${JSON.stringify(images)} is not prebuilt or local`);
  if (images === "local" && !options.repos)
    throw new Error(
      "--images local builds images from mirrors: give --repos DIR (a folder of <owner>__<name>.git mirrors, as loclab mirrors fetch makes)",
    );
  return {
    images: images as "local" | "prebuilt",
    ...(options.repos ? { repos: options.repos } : {}),
    out: options.out,
    concurrency: numericOption("concurrency", options.concurrency, { integer: true, min: 1 }),
    buildConcurrency: numericOption("build-concurrency", options.buildConcurrency, { integer: true, min: 1 }),
    resolvedAsOf: options.resolvedAsOf,
    timeoutMs: numericOption("timeout", options.timeout, { min: 1 }) * 1000,
    ...(options.memory
      ? { memoryBytes: numericOption("memory", options.memory, { integer: true, min: 64 }) * 2 ** 20 }
      : {}),
    limits: {
      ...(options.processes
        ? { processes: numericOption("processes", options.processes, { integer: true, min: 16 }) }
        : {}),
      ...(options.cpus ? { cpus: numericOption("cpus", options.cpus, { min: 0.01 }) } : {}),
      ...(options.logMib
        ? { logBytes: numericOption("log-mib", options.logMib, { integer: true, min: 1 }) * 2 ** 20 }
        : {}),
    },
    ...(options.minFreeGib
      ? { minFreeBytes: numericOption("min-free-gib", options.minFreeGib, { min: 0 }) * 2 ** 30 }
      : {}),
    prebuilt: { namespace: options.namespace, tag: options.tag, pull: options.pull },
    ...(options.harnessEnvironments ? { harnessEnvironments: options.harnessEnvironments } : {}),
    ...(options.validations ? { validationDir: options.validations } : {}),
  };
}

const onProgress = (
  event:
    | { kind: "log"; line: string }
    | {
        kind: "instance";
        done: number;
        total: number;
        outcome: {
          instance_id: string;
          status: string;
          infra_failure_reason?: string | undefined;
          duration_ms: number;
          cached: boolean;
        };
        resumed: boolean;
      },
) => {
  if (event.kind === "log") return progress(event.line.trimStart());
  const { outcome } = event;
  const how = event.resumed ? " (already done: resumed)" : outcome.cached ? " (from the result cache)" : "";
  progress(
    `[${event.done}/${event.total}] ${outcome.instance_id} ${outcome.status}${outcome.infra_failure_reason ? ` (${outcome.infra_failure_reason})` : ""} ${(outcome.duration_ms / 1000).toFixed(1)} s${how}`,
  );
};

/** The options `evaluate` and `evaluate calibrate` share: where images come from, limits, outputs. */
function containerOptions(command: Command, out: string): Command {
  return command
    .option("--repos <dir>", "folder of mirrors (<owner>__<name>[.git], bare or not) to build local images from")
    .option(
      "--images <kind>",
      "prebuilt (swebench/sweb.eval.x86_64.* from a registry, or present locally) or local (built here); default local with --repos, else prebuilt",
    )
    .option("--concurrency <n>", "instances evaluated at once", "2")
    .option("--build-concurrency <n>", "with local images: env and instance images built at once", "2")
    .option(
      "--resolved-as-of <when>",
      "with local images: resolve unpinned requirements as of harness (the date of the harness's validated images of the repository), now, or an ISO date",
      "harness",
    )
    .option("--timeout <seconds>", "per instance, the limit of the eval script", "1800")
    .option("--out <dir>", out, ".")
    .option("--specs <file>", "JSON {repo: {version: spec}} for repositories or versions the harness does not know")
    .option(
      "--harness-environments <dir>",
      "with local images: the harness's cached environments (a SWE-bench checkout's swebench/resources/swebench-og); an instance with one is built from it",
    )
    .option(
      "--python-prefix <dir>",
      "with local images: a CPython installed here (its prefix, e.g. ~/.pyenv/versions/3.10.13) offered as the base for its version, exactly where the Debian suites have none (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--validations <dir>",
      "where calibrations record the images they validated, and evaluations look them up (default ~/.cache/loclab/validations)",
    )
    .option("--namespace <name>", "with --images prebuilt: the registry namespace", "swebench")
    .option("--tag <tag>", "with --images prebuilt: the instance image tag", "latest")
    .option("--no-pull", "with --images prebuilt: use local images only")
    .option("--memory <mib>", "memory limit per container, swap included (default 8192; the harness sets none)")
    .option("--processes <n>", "processes at once per container (default 4096; the harness sets none)")
    .option("--cpus <n>", "CPUs per container unless the spec gives nano_cpus (default 2)")
    .option("--log-mib <mib>", "the test log's cap: a log past it is not graded, log-over-limit (default 128)")
    .option(
      "--min-free-gib <n>",
      "free disk needed where the engine keeps images (default 10 with local images, 2 otherwise)",
    )
    .option("--data-dir <dir>", "the shared data folder");
}

/**
 * `loclab evaluate`: a predictions file in SWE-bench's format evaluated in containers on a
 * Docker engine (DOCKER_HOST), compatible with the SWE-bench harness (report.json per
 * instance, the run summary `<model>.<run_id>.json`, the harness's log layout). Exit 0 when every
 * instance has a verdict, 1 when some could not be evaluated (infrastructure failures, named).
 */
export function registerEvaluateCommand(program: Command): void {
  const evaluate = containerOptions(
    program
      .command("evaluate")
      .description(summaryOf("evaluate"))
      .option(
        "--predictions <file>",
        "SWE-bench predictions: .jsonl, or .json (a list or an object by instance id) of {instance_id, model_name_or_path, model_patch}",
      )
      .option(
        "-b, --benchmark <name|path>",
        "the benchmark the predictions are for (lite, or a JSONL of SWE-bench rows with test_patch and the test lists)",
      )
      .option("--run-id <id>", "the run's name: logs/run_evaluation/<run-id>/…"),
    "where logs/run_evaluation/… and the summary go",
  )
    .option("--no-cache", "do not reuse or keep results by image digest + patch hash")
    .option("--cache-dir <dir>", "the result cache (default ~/.cache/loclab/evaluations)")
    .option("--instances <ids>", "only these instance ids (comma-separated)")
    .option("--run-empty", "run the tests for empty patches too (the harness skips them)")
    .option("--json", "print the run summary as JSON")
    .action(async (options: EvaluateOptions) => {
      for (const [flag, value] of [
        ["--predictions", options.predictions],
        ["--benchmark", options.benchmark],
        ["--run-id", options.runId],
      ] as const) {
        if (!value)
          throw new Error(`${flag} is required (loclab evaluate --predictions FILE --benchmark NAME --run-id ID)`);
      }
      await checkResolvedAsOf(options.resolvedAsOf);
      const { evaluatePredictions, readSwePredictions } = await import("@loclab/evaluation");
      const predictions = await readSwePredictions(options.predictions);
      const instances = await loadInstances(options.benchmark, options.dataDir, options.instances);
      const chosen = options.instances
        ? predictions.filter((prediction) => instances.some((row) => row.instance_id === prediction.instance_id))
        : predictions;
      const specs = await readSpecs(options.specs);
      progress(
        `${chosen.length} predictions of ${options.predictions} on ${options.benchmark} (${instances.length} instances), run ${options.runId}`,
      );
      const result = await evaluatePredictions({
        ...commonOptions(options),
        ...(await localPythons(options.pythonPrefix)),
        predictions: chosen,
        instances,
        runId: options.runId,
        ...(specs ? { specs } : {}),
        ...(options.cache ? (options.cacheDir ? { cacheDir: options.cacheDir } : {}) : { cacheDir: false }),
        ...(options.runEmpty ? { runEmptyPatches: true } : {}),
        onProgress,
      });
      const { summary } = result;
      if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else {
        printTable([
          {
            submitted: summary.submitted_instances,
            resolved: summary.resolved_instances,
            unresolved: summary.unresolved_instances,
            "patch did not apply": summary.patch_apply_failed_ids.length,
            "empty patch": summary.empty_patch_instances,
            "infrastructure failures": summary.error_instances,
            "from cache": summary.cached_ids.length,
          },
        ]);
        for (const [id, failure] of Object.entries(summary.infra_failures))
          process.stdout.write(`${id}: ${failure.reason}: ${failure.detail.split("\n")[0]}\n`);
        if (summary.unvalidated_image_ids.length > 0)
          process.stdout.write(
            `warning: ${summary.unvalidated_image_ids.length} instance(s) graded on images no calibration validated (loclab evaluate calibrate): ${summary.unvalidated_image_ids.slice(0, 10).join(", ")}${summary.unvalidated_image_ids.length > 10 ? ", …" : ""}\n`,
          );
        for (const [python, count] of Object.entries(summary.pythons))
          process.stdout.write(`python ${python}: ${count} instance${count === 1 ? "" : "s"}\n`);
        process.stdout.write(`summary: ${result.summaryPath}\n`);
      }
      if (summary.error_instances > 0) process.exitCode = 1;
    });

  evaluate
    .command("grade")
    .description("grade one test log offline as the harness does and print the instance's report.json entry")
    .requiredOption("--log <file>", "a test_output.txt (the eval script's output)")
    .requiredOption("--instance <id>", "the instance the log is of")
    .requiredOption(
      "-b, --benchmark <name|path>",
      "the benchmark the instance is in (its repo, version and test lists)",
    )
    .option("--no-patch", "grade as for a prediction without a patch (patch_is_None)")
    .option("--specs <file>", "JSON {repo: {version: spec}} for repositories the harness does not know (its parser)")
    .option("--data-dir <dir>", "the shared data folder")
    .action(
      async (options: {
        log: string;
        instance: string;
        benchmark: string;
        patch: boolean;
        specs?: string;
        dataDir?: string;
      }) => {
        const { gradeLog, harnessSpec, PARSER_FOR_REPO } = await import("@loclab/grading");
        const [instance] = await loadInstances(options.benchmark, options.dataDir, options.instance, "--instance");
        const specs = await readSpecs(options.specs);
        // A repository the harness maps has its parser; another one needs a spec naming one.
        const parser =
          PARSER_FOR_REPO[instance!.repo] || !specs?.[instance!.repo]
            ? undefined
            : harnessSpec(instance!.repo, instance!.version, specs).parser;
        const log = await readFile(options.log, "utf8").catch((error: NodeJS.ErrnoException) => {
          throw new Error(`--log ${options.log}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
        });
        const grade = gradeLog({
          repo: instance!.repo,
          ...(parser ? { parser } : {}),
          modelPatch: options.patch ? "(graded offline)" : null,
          log,
          FAIL_TO_PASS: instance!.FAIL_TO_PASS ?? [],
          PASS_TO_PASS: instance!.PASS_TO_PASS ?? [],
        });
        if (grade.notFound)
          progress(`${options.log}: no test results (${grade.notFound}): patch_successfully_applied is false`);
        process.stdout.write(`${JSON.stringify({ [instance!.instance_id]: grade.report }, null, 4)}\n`);
      },
    );

  containerOptions(
    evaluate
      .command("calibrate")
      .description(
        "run the gold patch several times and the empty patch once per instance image; list the tests that flip (flaky)",
      )
      .requiredOption("-b, --benchmark <name|path>", "the benchmark")
      .requiredOption("--run-id <id>", "the calibration's name (runs <id>.gold-N and <id>.empty)")
      .requiredOption("--instances <ids>", "the instances to calibrate (comma-separated)")
      .option("--gold-runs <n>", "gold runs per instance", "3"),
    "where the runs and calibration.<run-id>.json go",
  )
    .option("--json", "print the calibration as JSON")
    .action(async (options: CalibrateCliOptions) => {
      await checkResolvedAsOf(options.resolvedAsOf);
      const { calibrate } = await import("@loclab/evaluation");
      const all = await loadInstances(options.benchmark, options.dataDir, undefined);
      const chosen = await loadInstances(options.benchmark, options.dataDir, options.instances);
      const specs = await readSpecs(options.specs);
      const result = await calibrate({
        ...commonOptions(options),
        ...(await localPythons(options.pythonPrefix)),
        calibrate: chosen,
        instances: all,
        runId: options.runId,
        goldRuns: numericOption("gold-runs", options.goldRuns, { integer: true, min: 2 }),
        ...(specs ? { specs } : {}),
        onProgress,
      });
      if (options.json)
        process.stdout.write(`${JSON.stringify({ table: result.table, instances: result.instances })}\n`);
      else {
        printTable(
          Object.entries(result.instances).map(([id, entry]) => ({
            instance: id,
            gold: entry.gold.join(" "),
            empty: entry.empty ?? "-",
            flaky: entry.flaky.length,
            "gold fails": entry.goldFailing.length,
            "pass without fix": entry.passWithoutFix.length,
            validated: entry.validated ? "yes" : "no",
          })),
        );
        printTable(
          result.table.map((row) => ({
            repository: row.repo,
            version: row.version,
            python: row.pythons.join(", ") || "-",
            instances: row.instances,
            built: row.built,
            "gold resolved": row.gold_resolved,
            "empty resolved": row.empty_resolved,
            "with flaky tests": row.with_flaky_tests,
            "infrastructure failures": row.infra_failures,
            validated: row.validated,
          })),
        );
        process.stdout.write(`calibration: ${result.path}\n`);
      }
      if (
        Object.values(result.instances).some(
          (entry) => entry.gold.includes("infra-failure") || entry.empty === "infra-failure",
        )
      )
        process.exitCode = 1;
    });
  registerEvaluateImagesCommand(evaluate);
}
