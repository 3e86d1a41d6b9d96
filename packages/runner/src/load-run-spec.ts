import { readFile } from "node:fs/promises";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { isBenchmarkName } from "@loclab/datasets";
import { defaultWorkspaceCacheDir } from "@loclab/tools";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { z } from "zod";
import { type RunSpec, type RunSpecInput, RunSpecSchema } from "./run-spec.js";
import { type RepairSpec, RepairSpecSchema } from "./repair-spec.js";

/** A run spec that cannot be used: `where` names the file (and line) or the JSON path of the field. */
export class RunSpecError extends Error {
  override readonly name = "RunSpecError";
  constructor(
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${where}: ${problem}`);
  }
}

/** `$.controls[2].kind`: a zod issue path as a JSON path. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return `$${path.map((part) => (typeof part === "number" ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(String(part)) ? `.${String(part)}` : `[${JSON.stringify(String(part))}]`)).join("")}`;
}

/** The first problem of a failed parse, as one line: `spec.json: $.seeds[1]: …`. */
function firstIssue(source: string, error: z.ZodError): RunSpecError {
  const issue = error.issues[0];
  if (!issue) return new RunSpecError(source, "invalid run spec");
  let message = issue.message;
  if (issue.code === "unrecognized_keys")
    message = `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}`;
  if (issue.code === "invalid_union" && "note" in issue && issue.note === "No matching discriminator")
    message = `unknown control kind; one of plain, masked, shuffled, mismatch`;
  const more =
    error.issues.length > 1
      ? ` (and ${error.issues.length - 1} more problem${error.issues.length > 2 ? "s" : ""})`
      : "";
  return new RunSpecError(`${source}: ${jsonPath(issue.path)}`, `${message}${more}`);
}

/**
 * A run spec from a value (a notebook builds one in code): validated, defaults filled, and
 * every path made absolute against `baseDir` (default the working folder). Throws
 * `RunSpecError` naming the JSON path of the first bad field.
 *
 * @example parseRunSpec({ benchmark: "lite", endpoints: [{ baseURL: "http://127.0.0.1:8000/v1", model: "m" }], repos: "mirrors", out: "runs/a" })
 */
export function parseRunSpec(
  value: RunSpecInput | unknown,
  options: { baseDir?: string; source?: string } = {},
): RunSpec {
  const checked = RunSpecSchema.safeParse(value);
  if (!checked.success) throw firstIssue(options.source ?? "run spec", checked.error);
  return resolvePaths(checked.data, resolve(options.baseDir ?? "."));
}

/** Reads a run spec file: YAML for `.yaml`/`.yml`, JSON otherwise; paths relative to the file's folder. */
export async function loadRunSpec(file: string): Promise<RunSpec> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new RunSpecError(file, `cannot read the run spec: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let value: unknown;
  const yaml = [".yaml", ".yml"].includes(extname(file).toLowerCase());
  try {
    value = yaml ? parseYaml(text, { uniqueKeys: true }) : JSON.parse(text);
  } catch (error) {
    if (error instanceof YAMLParseError)
      throw new RunSpecError(
        `${file}:${error.linePos?.[0]?.line ?? "?"}`,
        `not valid YAML: ${error.message.split("\n")[0]}`,
      );
    // Node 20's JSON.parse does not always say where; YAML (a superset of JSON) usually can.
    const where = /position (\d+)/.exec(String(error));
    let line = where ? text.slice(0, Number(where[1])).split("\n").length : undefined;
    if (line === undefined) {
      try {
        parseYaml(text);
      } catch (yamlError) {
        if (yamlError instanceof YAMLParseError) line = yamlError.linePos?.[0]?.line;
      }
    }
    throw new RunSpecError(
      line ? `${file}:${line}` : file,
      `not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return parseRunSpec(value, { baseDir: dirname(resolve(file)), source: file });
}

function resolvePaths(spec: RunSpec, baseDir: string): RunSpec {
  const at = (path: string) => (isAbsolute(path) ? path : join(baseDir, path));
  const out = at(spec.out);
  return {
    ...spec,
    benchmark: isBenchmarkName(spec.benchmark) ? spec.benchmark : at(spec.benchmark),
    ...(spec.dataDir ? { dataDir: at(spec.dataDir) } : {}),
    repos: at(spec.repos),
    out,
    cacheDir: spec.cacheDir ? at(spec.cacheDir) : defaultWorkspaceCacheDir(),
    localizer: {
      ...spec.localizer,
      ...(spec.localizer.promptsDir ? { promptsDir: at(spec.localizer.promptsDir) } : {}),
    },
    // A repair run without a repair block gets every default (FGL's budgets, local images).
    ...(spec.kind === "repair" ? { repair: repairPaths(spec.repair ?? RepairSpecSchema.parse({}), at) } : {}),
    ...(spec.judge
      ? { judge: { ...spec.judge, ...(spec.judge.rubric ? { rubric: at(spec.judge.rubric) } : {}) } }
      : {}),
  };
}

/** The repair block's file locations made absolute (the harness environments, extra specs, the evaluation cache). */
function repairPaths(repair: RepairSpec, at: (path: string) => string): RepairSpec {
  const { images, evaluation } = repair;
  return {
    ...repair,
    images: {
      ...images,
      ...(images.harnessEnvironments ? { harnessEnvironments: at(images.harnessEnvironments) } : {}),
    },
    evaluation: {
      ...evaluation,
      ...(evaluation.specs ? { specs: at(evaluation.specs) } : {}),
      ...(evaluation.cacheDir ? { cacheDir: at(evaluation.cacheDir) } : {}),
    },
  };
}
