import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { urlWithoutCredentials } from "@loclab/openai-http";
import type { RunEnvironment } from "@loclab/schemas";
import { canonicalJson } from "./attempt-key.js";
import type { RunSpec } from "./run-spec.js";

const here = dirname(fileURLToPath(import.meta.url));

/** This package's version (the runner's, as trajectories and manifests record it). */
export const RUNNER_VERSION: string = (
  JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8")) as { version: string }
).version;

/** The packages whose versions shape a run's results. */
const RECORDED_PACKAGES = [
  "@loclab/agent",
  "@loclab/controls",
  "@loclab/datasets",
  "@loclab/metrics",
  "@loclab/runner",
  "@loclab/schemas",
  "@loclab/tools",
  "openai",
  "zod",
  "web-tree-sitter",
];

/** A package's version, found by walking up from this module to a `node_modules` that has it. */
function packageVersion(name: string): string | undefined {
  for (let dir = here; ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", name, "package.json");
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The git revision of the loclab checkout this module runs from (`-dirty` with uncommitted changes), or null. */
export function loclabRevision(): string | null {
  try {
    const head = execFileSync("git", ["-C", here, "rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const dirty = execFileSync("git", ["-C", here, "status", "--porcelain", "--untracked-files=no"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return dirty ? `${head}-dirty` : head;
  } catch {
    return null;
  }
}

/** The software this process runs: loclab's version and revision, the packages that shape results, Node. */
export function environmentFacts(): RunEnvironment {
  const packages: Record<string, string> = {};
  for (const name of RECORDED_PACKAGES) {
    const version = name === "@loclab/runner" ? RUNNER_VERSION : packageVersion(name);
    if (version) packages[name] = version;
  }
  return { loclab: { version: RUNNER_VERSION, gitRevision: loclabRevision() }, packages, node: process.version };
}

/**
 * A spec as stored: plain JSON (no undefined), for the manifest and for comparing runs.
 * Credentials in an endpoint URL (`http://user:pass@host/v1`) are left out: a secret never
 * reaches a file. Such a run resumes from the command that has them (`loclab localize` with the
 * same URL), or with the key in `apiKeyEnv`.
 */
export function storedSpec(spec: RunSpec): Record<string, unknown> {
  const endpoints = spec.endpoints.map((endpoint) => ({
    ...endpoint,
    baseURL: urlWithoutCredentials(endpoint.baseURL),
  }));
  return JSON.parse(canonicalJson({ ...spec, endpoints })) as Record<string, unknown>;
}

/**
 * What makes a run the run it is: benchmark, instances, seeds, controls, the localizer and
 * its per-instance budgets, the model. The rest of a spec says how to run it (endpoints,
 * retries, the run's budget, the folders) and may change between sessions: a restarted server
 * on a new port continues the same run.
 */
export function runIdentity(stored: Record<string, unknown>): Record<string, unknown> {
  const endpoints = stored.endpoints as { model?: unknown }[] | undefined;
  const budgets = stored.budgets as { instance?: unknown } | undefined;
  return {
    benchmark: stored.benchmark,
    dataDir: stored.dataDir,
    instances: stored.instances,
    seeds: stored.seeds,
    controls: stored.controls,
    localizer: stored.localizer,
    instanceBudgets: budgets?.instance,
    model: endpoints?.[0]?.model,
  };
}

/** The first field where two stored specs differ, as a dotted path, or undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = "$"): string | undefined {
  if (canonicalJson(a) === canonicalJson(b)) return undefined;
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const inner = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`,
      );
      if (inner) return inner;
    }
  }
  return path;
}
