import { parse as parseToml } from "smol-toml";
import { majorMinor } from "./python-choice.js";
import { environmentPaths, requirementReplacements, requirementsText, type HarnessSpec } from "@loclab/grading";
import {
  CondaEnvironmentError,
  type CondaTranslation,
  translateCondaEnvironment,
  translateCondaPackages,
} from "./conda-environment.js";

/** An environment loclab cannot build here (a conda-only environment.yml, for one): named, never "unresolved". */
export class EnvironmentUnsupportedError extends Error {
  constructor(
    readonly repo: string,
    readonly version: string,
    reason: string,
  ) {
    super(`${repo} ${version}: ${reason}`);
    this.name = "EnvironmentUnsupportedError";
  }
}

/** What the env image installs, and where each part came from. */
export interface EnvironmentPlan {
  repo: string;
  version: string;
  /** The Python version the harness asks for: the spec's, or the one its cached environment pins. */
  requestedPython: string;
  /** pip requirement lines, in install order (all stages). */
  requirements: string[];
  /**
   * The installs, in order, as the harness runs them: the packages / requirements file first,
   * then `pip_packages` in a second `pip install` (whose pins may move the first's: flask 2.3
   * pins MarkupSafe 2.1.1 in its requirements and 2.1.2 in pip_packages), then the build
   * requirements.
   */
  stages: string[][];
  /** Where the lines came from: `spec.packages`, `requirements.txt@<commit>`, `spec.pip_packages`, `build-system`. */
  sources: string[];
  /** What conda's part became (the spec's packages, an environment.yml): dropped, renamed, assumed names. */
  conda?: Pick<CondaTranslation, "dropped" | "renamed" | "assumed">;
  /**
   * The stages that pin a whole environment (a cached environment's `conda env export`, its
   * conda part and its pip part): conda already chose every version in them, so where pip's
   * resolver cannot agree with those pins (conda's metadata of a package need not be pip's:
   * conda-forge's cf-units runs on the antlr runtime its export pins, pip's metadata asks for
   * another), the env image installs them as pinned, without resolving (`--no-deps`).
   */
  exportStages: number[];
}

export interface PlanEnvironmentInput {
  repo: string;
  version: string;
  spec: HarnessSpec;
  /** The commit whose requirements file the harness reads (environment_setup_commit, else base_commit). */
  environmentCommit: string;
  /** A file of the repository at `environmentCommit`, or undefined when absent. */
  readFile: (path: string) => string | undefined;
  /**
   * The harness's cached environment of this instance (`swebench/resources/swebench-og/<repo>/<number>/environment.yml`,
   * a `conda env export` of its validated image): when given, the harness builds from it alone
   * (`make_env_script_list_py_from_conda`: no spec packages, no pip_packages), and so does loclab.
   */
  cachedEnvironment?: { text: string; source: string };
}

/**
 * The harness's environment (`make_env_script_list_py`) as pip requirements, stage by stage as
 * the harness installs them: the instance's cached environment when there is one (alone, as the
 * harness does); else the spec's `packages` — a conda package list or the repository's conda
 * environment file, both translated by `translateCondaEnvironment` (renamed, dropped and assumed
 * names kept in `conda`), or the repository's requirements file, read and cleaned as the harness
 * does — then `pip_packages`; last the repository's own build requirements (pyproject's
 * `[build-system] requires`), made into wheels only (never installed into the environment, as the
 * harness does not), so that the isolated build of `pip install -e .` finds them offline.
 */
export function planEnvironment(input: PlanEnvironmentInput): EnvironmentPlan {
  const { spec } = input;
  const stages: string[][] = [];
  const sources: string[] = [];
  let conda: CondaTranslation | undefined;
  let requestedPython = spec.python;
  const exportStages: number[] = [];
  const fail = (error: unknown): never => {
    if (error instanceof CondaEnvironmentError)
      throw new EnvironmentUnsupportedError(input.repo, input.version, error.message);
    throw error;
  };
  const packages = spec.packages ?? "";
  if (input.cachedEnvironment) {
    try {
      conda = translateCondaEnvironment(input.cachedEnvironment.text, input.cachedEnvironment.source);
    } catch (error) {
      fail(error);
    }
    if (conda!.python) requestedPython = majorMinor(conda!.python);
    pushConda(stages, sources, conda!, input.cachedEnvironment.source);
    exportStages.push(...stages.keys());
  } else if (packages === "environment.yml") {
    const found = environmentPaths(input.repo)
      .map((path) => ({ path, text: input.readFile(path) }))
      .find((file) => file.text !== undefined);
    if (!found)
      throw new EnvironmentUnsupportedError(
        input.repo,
        input.version,
        `no conda environment file at ${environmentPaths(input.repo).join(" or ")} in ${input.environmentCommit}`,
      );
    const source = `${found.path}@${input.environmentCommit}`;
    try {
      conda = translateCondaEnvironment(found.text!, source, requirementReplacements());
    } catch (error) {
      fail(error);
    }
    pushConda(stages, sources, conda!, source);
  } else if (packages === "requirements.txt") {
    const { path, text } = requirementsText(input.repo, input.readFile);
    const lines = text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    if (lines.length > 0) stages.push(lines);
    sources.push(`${path}@${input.environmentCommit}`);
  } else if (packages.trim() !== "") {
    try {
      conda = translateCondaPackages(packages.trim().split(/\s+/), "spec.packages");
    } catch (error) {
      fail(error);
    }
    if (conda!.requirements.length > 0) stages.push(conda!.requirements);
    sources.push("spec.packages");
  }
  // The harness installs pip_packages after the environment, except from a cached environment.
  if (!input.cachedEnvironment && spec.pip_packages?.length) {
    stages.push([...spec.pip_packages]);
    sources.push("spec.pip_packages");
  }
  const build = buildRequirements(input.readFile("pyproject.toml"));
  if (build.length > 0) {
    stages.push(build);
    sources.push("build-system");
  }
  return {
    repo: input.repo,
    version: input.version,
    requestedPython,
    requirements: stages.flat(),
    stages,
    sources,
    exportStages,
    ...(conda ? { conda: { dropped: conda.dropped, renamed: conda.renamed, assumed: conda.assumed } } : {}),
  };
}

/** A conda file's two stages, as conda installs them: its packages, then its pip section. */
function pushConda(stages: string[][], sources: string[], conda: CondaTranslation, source: string): void {
  if (conda.requirements.length > 0) {
    stages.push(conda.requirements);
    sources.push(`${source} (conda)`);
  }
  if (conda.pip.length > 0) {
    stages.push(conda.pip);
    sources.push(`${source} (pip)`);
  }
}

/**
 * `[build-system] requires` of a pyproject.toml (string items only), read by a TOML parser: an
 * item's own brackets (`"setuptools-scm[toml]>=6.2.3"`) once ended a regular expression's list
 * early, and pytest 7/8's offline builds then missed setuptools-scm. A file that is not TOML
 * gives none (pip reports it when it builds).
 */
export function buildRequirements(pyproject: string | undefined): string[] {
  if (!pyproject) return [];
  let document: unknown;
  try {
    document = parseToml(pyproject);
  } catch {
    return [];
  }
  const requires = (document as { "build-system"?: { requires?: unknown } })["build-system"]?.requires;
  if (!Array.isArray(requires)) return [];
  return requires
    .filter((item): item is string => typeof item === "string")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}
