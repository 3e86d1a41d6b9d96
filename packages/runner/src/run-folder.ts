import { existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import {
  appendJsonl,
  ARTIFACT_KINDS,
  cellLabel,
  RUN_FOLDER_LAYOUT,
  type RunEndpointFacts,
  type RunEnvironment,
  type RunManifest,
  readRunManifest,
  runLayout,
  runSessionLine,
  SCHEMA_VERSION,
  writeMismatchPairing,
  writeRunManifest,
} from "@loclab/schemas";
import { canonicalJson } from "./attempt-key.js";
import { RunSpecError } from "./load-run-spec.js";
import { firstDifference, runIdentity, storedSpec } from "./run-identity.js";
import type { RunPlan } from "./run-plan.js";
import type { RunSpec } from "./run-spec.js";

/** The run folder already holds another run, or something else that is not a run. */
export class RunFolderError extends Error {
  override readonly name = "RunFolderError";
}

/**
 * Checks that `spec.out` may hold this run before anything is written: empty, or holding this
 * same run (same identity: `runIdentity`). A folder holding another run's manifest, or the files
 * of an older `loclab localize`, is refused; so is a `repos` folder that is not there. Returns
 * the manifest found, if any.
 */
export async function checkRunFolder(spec: RunSpec): Promise<RunManifest | undefined> {
  const dir = spec.out;
  const existing = await readRunManifest(dir);
  if (existing) {
    const difference = firstDifference(runIdentity(existing.spec), runIdentity(storedSpec(spec)));
    if (difference) {
      const field = difference
        .replace("$.instanceBudgets", "$.budgets.instance")
        .replace("$.model", "$.endpoints[0].model");
      throw new RunFolderError(
        `${runLayout.manifest(dir)} holds another run (its spec differs at ${field}); choose another "out", or continue that run with loclab run --resume ${dir}`,
      );
    }
  } else {
    for (const old of ["predictions.jsonl", "runs.jsonl"]) {
      if (existsSync(`${dir}/${old}`))
        throw new RunFolderError(
          `${dir} holds ${old} from an older loclab localize and no manifest.json; choose another "out"`,
        );
    }
  }
  // The cache may hold every tree, but a spec that names a folder that is not there is not true.
  if (!existsSync(spec.repos))
    throw new RunSpecError(
      "$.repos",
      `${spec.repos} does not exist (the folder of git mirrors, one per repository: <owner>__<name>[.git])`,
    );
  return existing;
}

/** What a session found when it started: for the manifest (first session) and the session line. */
export interface SessionFacts {
  startedAt: string;
  environment: RunEnvironment;
  endpoints: RunEndpointFacts[];
  command: string | null;
}

/** Writes `manifest.json` and the mismatch pairings: once, when a run starts. */
export async function writeNewRun(plan: RunPlan, facts: SessionFacts): Promise<void> {
  const dir = plan.spec.out;
  const stored = storedSpec(plan.spec);
  await writeRunManifest(dir, {
    kind: ARTIFACT_KINDS.runManifest,
    schemaVersion: SCHEMA_VERSION,
    layout: RUN_FOLDER_LAYOUT,
    spec: stored,
    specDigest: createHash("sha256").update(canonicalJson(stored)).digest("hex"),
    benchmark: plan.benchmarkName,
    instances: plan.instances.map((instance) => instance.instance_id),
    cells: plan.cells.map(cellLabel),
    attemptKeys: plan.attempts.length,
    ...facts.environment,
    endpoints: facts.endpoints,
    startedAt: facts.startedAt,
  });
  for (const [seed, pairs] of plan.pairings) await writeMismatchPairing(dir, seed, pairs);
}

/** Appends this session's line to `sessions.jsonl`: its own spec (endpoints, retries and the run's budget may differ from the first). */
export async function recordSession(plan: RunPlan, facts: SessionFacts, resumed: boolean): Promise<void> {
  await appendJsonl(
    runLayout.sessions(plan.spec.out),
    runSessionLine({
      startedAt: facts.startedAt,
      pid: process.pid,
      host: hostname(),
      resumed,
      command: facts.command,
      spec: storedSpec(plan.spec),
      endpoints: facts.endpoints,
      ...facts.environment,
    }),
  );
}
