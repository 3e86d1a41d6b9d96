import { parse } from "yaml";
import { CONDA_ONLY, CONDA_PIP_MARKERS, CONDA_TO_PIP } from "./conda-names.js";

/** A conda environment file loclab cannot read: names the file and what is wrong. */
export class CondaEnvironmentError extends Error {
  constructor(
    readonly source: string,
    reason: string,
  ) {
    super(`${source}: ${reason}`);
    this.name = "CondaEnvironmentError";
  }
}

/** What a conda environment file becomes for pip, and everything that did not carry over. */
export interface CondaTranslation {
  /** The conda dependencies as pip requirement lines, in file order. */
  requirements: string[];
  /** The file's `pip:` section, as written (less `-e` lines and the harness's yanked packages). */
  pip: string[];
  /** The Python the file pins (`python=3.9.20` → "3.9.20"), if it pins one. */
  python?: string;
  /** Conda entries not installed, each with why. */
  dropped: { entry: string; reason: string }[];
  /** Conda names installed under another pip name. */
  renamed: { conda: string; pip: string }[];
  /** Conda names without a build string and without a table entry, installed under the same name. */
  assumed: string[];
}

/** `[package, replacement]`: the harness's REPLACE_REQ_PACKAGES (a null replacement removes the line). */
export type RequirementReplacements = readonly (readonly [string, string | null])[];

interface MatchSpec {
  name: string;
  /** pip's version specifier, "" for any. */
  specifier: string;
  version?: string;
  build?: string;
}

/**
 * A conda match spec as pip sees it: `name`, `name=1.2` (conda's fuzzy `1.2.*`), `name=1.2=build`
 * (exact, as `conda env export` writes), `name==1.2`, `name>=1,<2`, `name 1.2.*`,
 * `channel::name`. Undefined when the entry is none of these (`name[version='…']`).
 */
export function parseMatchSpec(entry: string): MatchSpec | undefined {
  const text = entry.replace(/^[\w.-]+::/, "").trim();
  const match = /^([A-Za-z0-9_.-]+)(.*)$/.exec(text);
  if (!match) return undefined;
  const name = match[1]!;
  const rest = match[2]!.trim();
  if (rest === "") return { name, specifier: "" };
  if (/^=[^=]/.test(rest)) {
    const [version, build] = rest.slice(1).split("=");
    if (!version) return undefined;
    // With a build string the version is exact (an export); without, conda reads `=1.2` as 1.2.*.
    const specifier = build !== undefined || version.includes("*") ? `==${version}` : `==${version}.*`;
    return { name, specifier, version, ...(build !== undefined ? { build } : {}) };
  }
  if (/^(==|>=|<=|!=|~=|>|<)/.test(rest)) return { name, specifier: rest.replace(/\s+/g, "") };
  const spaced = /^(\S+)(?:\s+(\S+))?$/.exec(rest);
  if (spaced && /^[\d*]/.test(spaced[1]!)) {
    const version = spaced[1]!;
    return {
      name,
      specifier: version.includes("*") ? `==${version}` : `==${version}`,
      version,
      ...(spaced[2] ? { build: spaced[2] } : {}),
    };
  }
  return undefined;
}

/**
 * A conda environment file (`environment.yml`; `conda env export`'s too) as pip requirements.
 * A conda entry becomes a pip line when it is a Python package: by the table of renamed names
 * (`CONDA_TO_PIP`), else, with a build string, when the build carries a Python tag (`py39h…`,
 * `pyhd8ed1ab_0`: conda-build tags every build that depends on Python) — a build without one is
 * a library and is dropped — and, without a build string, under its own name (listed in
 * `assumed`). Names in `CONDA_ONLY` are dropped with their reason. The `pip:` section is kept as
 * written, after the harness's own cleaning (`clean_environment_yml`: yanked packages replaced).
 */
export function translateCondaEnvironment(
  text: string,
  source: string,
  replacements: RequirementReplacements = [],
): CondaTranslation {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new CondaEnvironmentError(source, `not YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  const dependencies = (document as { dependencies?: unknown } | null)?.dependencies;
  if (!Array.isArray(dependencies)) throw new CondaEnvironmentError(source, "no `dependencies:` list");
  const result: CondaTranslation = { requirements: [], pip: [], dropped: [], renamed: [], assumed: [] };
  for (const [index, item] of dependencies.entries()) {
    // `- pip:` with nothing under it (an export whose environment had no pip packages) is null.
    if (item && typeof item === "object" && "pip" in item) {
      const lines = (item as { pip: unknown }).pip ?? [];
      if (!Array.isArray(lines)) throw new CondaEnvironmentError(source, `dependency ${index + 1}: pip: is not a list`);
      for (const line of lines) {
        const requirement = String(line).trim();
        if (/^-e\b|^--editable\b/.test(requirement)) {
          result.dropped.push({ entry: requirement, reason: "an editable install (the spec's install does that)" });
          continue;
        }
        const replaced = replaceRequirement(requirement, replacements);
        if (replaced === null)
          result.dropped.push({ entry: requirement, reason: "removed by the harness (yanked from the index)" });
        else result.pip.push(replaced);
      }
      continue;
    }
    if (typeof item !== "string")
      throw new CondaEnvironmentError(source, `dependency ${index + 1} is neither a string nor a pip: list`);
    addCondaEntry(result, item, source);
  }
  return result;
}

/** A list of conda package specs (a harness spec's `packages`: "numpy scipy 'cython==3.0.10'") as pip requirements. */
export function translateCondaPackages(entries: readonly string[], source: string): CondaTranslation {
  const result: CondaTranslation = { requirements: [], pip: [], dropped: [], renamed: [], assumed: [] };
  for (const entry of entries) addCondaEntry(result, entry.replace(/^['"]|['"]$/g, ""), source);
  return result;
}

function addCondaEntry(result: CondaTranslation, item: string, source: string): void {
  const spec = parseMatchSpec(item);
  if (!spec) throw new CondaEnvironmentError(source, `dependency "${item}" is not a conda match spec loclab reads`);
  const key = spec.name.toLowerCase();
  if (key === "python") {
    if (spec.version) result.python = spec.version;
    result.dropped.push({ entry: item, reason: CONDA_ONLY.python! });
    return;
  }
  const marker = CONDA_PIP_MARKERS[key] ? `; ${CONDA_PIP_MARKERS[key]}` : "";
  const renamed = CONDA_TO_PIP[key];
  if (renamed) {
    result.renamed.push({ conda: spec.name, pip: renamed });
    result.requirements.push(`${renamed}${spec.specifier}${marker}`);
    return;
  }
  const only = CONDA_ONLY[key];
  if (only) {
    result.dropped.push({ entry: item, reason: only });
    return;
  }
  if (spec.build !== undefined && !/py/i.test(spec.build)) {
    result.dropped.push({ entry: item, reason: `a conda library (build ${spec.build} has no Python tag)` });
    return;
  }
  if (spec.build === undefined) result.assumed.push(spec.name);
  result.requirements.push(`${spec.name}${spec.specifier}${marker}`);
}

/** The harness's pip-section cleaning for one line: replaced, removed (null) or unchanged. */
function replaceRequirement(line: string, replacements: RequirementReplacements): string | null {
  const name = /^[A-Za-z0-9_.-]+/.exec(line)?.[0];
  if (!name) return line;
  for (const [from, to] of replacements) {
    if (from !== name) continue;
    const rest = line.slice(name.length);
    if (!/^([<>=!~]=?.*|)$/.test(rest)) continue;
    return to;
  }
  return line;
}
