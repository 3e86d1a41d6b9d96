import type { HarnessSpec } from "./harness-spec-types.js";
import { HARNESS_SPECS_DATA } from "./harness-specs.generated.js";

/** The harness version the specs table was generated from. */
export const HARNESS_VERSION = HARNESS_SPECS_DATA.harness.version;

export class UnknownSpecError extends Error {
  constructor(repo: string, version: string | undefined, known: string[]) {
    super(
      version === undefined
        ? `instance of ${repo} has no "version" field: the harness picks the test command and environment by version`
        : known.length === 0
          ? `no SWE-bench spec for repository ${repo} (give one with the evaluation's specs option)`
          : `no SWE-bench spec for ${repo} version ${version} (known: ${known.join(", ")})`,
    );
    this.name = "UnknownSpecError";
  }
}

/** The harness's spec for a repository and version (`MAP_REPO_VERSION_TO_SPECS[repo][version]`). */
export function harnessSpec(
  repo: string,
  version: string | undefined,
  extra: Readonly<Record<string, Readonly<Record<string, HarnessSpec>>>> = {},
): HarnessSpec {
  const versions = { ...HARNESS_SPECS_DATA.specs[repo], ...extra[repo] };
  if (version === undefined) throw new UnknownSpecError(repo, version, Object.keys(versions));
  const spec = versions[version];
  if (!spec) throw new UnknownSpecError(repo, version, Object.keys(versions));
  return spec;
}

/** The test command the harness runs and grades with (the last one when a spec lists several). */
export function testCommand(spec: HarnessSpec): string {
  return Array.isArray(spec.test_cmd) ? spec.test_cmd.at(-1)! : spec.test_cmd;
}

/** Where the harness reads a repository's requirements file, in order of preference. */
export function requirementsPaths(repo: string): readonly string[] {
  return HARNESS_SPECS_DATA.requirementsPaths[repo] ?? ["requirements.txt"];
}

/**
 * The harness's requirements text for an instance (`get_requirements_by_commit` +
 * `clean_requirements`): the file's lines without `-e .`, comments and `.[test`, with each
 * `-r other.txt` inlined (before the rest), and yanked packages replaced or removed.
 * `readFile(path)` gives a file at the environment commit, or undefined when absent.
 */
export function requirementsText(
  repo: string,
  readFile: (path: string) => string | undefined,
): { path: string; text: string } {
  const candidates = requirementsPaths(repo);
  let found: { path: string; text: string } | undefined;
  for (const path of candidates) {
    const text = readFile(path);
    if (text !== undefined) {
      found = { path, text };
      break;
    }
  }
  if (!found) throw new Error(`could not find a requirements file at ${candidates.join(", ")} for ${repo}`);
  const excluded = (line: string) => ["-e .", "#", ".[test"].some((prefix) => line.trim().startsWith(prefix));
  const directory = found.path.split("/").slice(0, -1).join("/");
  const original: string[] = [];
  const additional: string[] = [];
  for (const line of found.text.split("\n")) {
    if (line.trim().startsWith("-r")) {
      const name = line.slice(2).trim();
      const included = readFile(directory ? `${directory}/${name}` : name);
      if (included !== undefined)
        for (const extra of included.split("\n")) if (!excluded(extra)) additional.push(extra);
    } else if (!excluded(line)) original.push(line);
  }
  additional.push(original.join("\n"));
  let text = additional.join("\n");
  for (const [name, replacement] of HARNESS_SPECS_DATA.replaceRequirementPackages) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    text =
      replacement === null
        ? text.replace(new RegExp(`(?<=^|\\n)${escaped}([<>=!~]=?[^\\n]*|(?=\\n|$))\\n?`, "g"), "")
        : text.replace(new RegExp(`(?<=^|\\n)${escaped}([<>=!~]=?[^\\n]*|(?=\\n|$))`, "g"), replacement);
  }
  return { path: found.path, text };
}
