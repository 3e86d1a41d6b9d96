import { requirementsText, type HarnessSpec } from "@loclab/grading";

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
  /** The Python version the harness's spec asks for (the image has the base's Python). */
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
}

export interface PlanEnvironmentInput {
  repo: string;
  version: string;
  spec: HarnessSpec;
  /** The commit whose requirements file the harness reads (environment_setup_commit, else base_commit). */
  environmentCommit: string;
  /** A file of the repository at `environmentCommit`, or undefined when absent. */
  readFile: (path: string) => string | undefined;
}

/**
 * The harness's environment (`make_env_script_list_py`) as pip requirements: the spec's
 * `packages` (a conda package list, installed here with pip under the same names; or the
 * repository's requirements file, read and cleaned as the harness does), then `pip_packages`,
 * then the repository's own build requirements (pyproject's `[build-system] requires`), so that
 * `pip install -e .` works offline without build isolation. A conda environment.yml is not
 * supported (no conda here).
 */
export function planEnvironment(input: PlanEnvironmentInput): EnvironmentPlan {
  const { spec } = input;
  const stages: string[][] = [];
  const sources: string[] = [];
  const packages = spec.packages ?? "";
  if (packages === "environment.yml")
    throw new EnvironmentUnsupportedError(
      input.repo,
      input.version,
      "the spec's environment is a conda environment.yml, which needs conda (not available here)",
    );
  if (packages === "requirements.txt") {
    const { path, text } = requirementsText(input.repo, input.readFile);
    const lines = text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    if (lines.length > 0) stages.push(lines);
    sources.push(`${path}@${input.environmentCommit}`);
  } else if (packages.trim() !== "") {
    stages.push(packages.trim().split(/\s+/).map(condaToPip));
    sources.push("spec.packages");
  }
  if (spec.pip_packages?.length) {
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
    requestedPython: spec.python,
    requirements: stages.flat(),
    stages,
    sources,
  };
}

/** conda's `pkg=1.2` pins are pip's `pkg==1.2`; `pkg>=1` is the same in both. */
function condaToPip(name: string): string {
  return /^[A-Za-z0-9_.-]+=[^=]/.test(name) ? name.replace("=", "==") : name;
}

/** `[build-system] requires = [...]` of a pyproject.toml (string items only). */
export function buildRequirements(pyproject: string | undefined): string[] {
  if (!pyproject) return [];
  const section = /^\[build-system\][^\n]*\n([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(pyproject);
  if (!section) return [];
  const requires = /^requires\s*=\s*\[([\s\S]*?)\]/m.exec(section[1]!);
  if (!requires) return [];
  return [...requires[1]!.matchAll(/"([^"]+)"|'([^']+)'/g)]
    .map((match) => (match[1] ?? match[2])!.trim())
    .filter((item) => item !== "");
}
