import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { formatZodError } from "@loclab/schemas";
import { z } from "zod";
import type { BreakdownOptions } from "../breakdown/breakdown-options.js";
import { type Breakdown, breakdownRuns } from "../breakdown/breakdown-runs.js";
import type { FileProblem } from "../read/file-problem.js";
import { type ReadRunOptions, type RunRead, type RunSpec, readRun } from "../read/read-run.js";
import { runInputOf } from "../read/run-input.js";

/** The four real runs of shared/data/trajectories (data README, "Agent trajectories"). */
export const REAL_TRAJECTORY_RUNS: readonly Omit<RunSpec, "dir">[] = [
  { name: "mini-swe-agent_deepseek-chat_lite", format: "mini-swe-agent" },
  { name: "mini-swe-agent_gemini-3-pro_verified", format: "mini-swe-agent" },
  { name: "swe-agent_gpt4_lite", format: "swe-agent" },
  { name: "autocoderover_gpt4_lite", format: "autocoderover" },
];

/**
 * The default base of the real runs' vs-base column: SWE-agent 0.x with gpt-4-0125, the run
 * the AutoCodeRover authors made as their own baseline (same model as AutoCodeRover), and the
 * oldest of the four, so "vs. base" reads as what each later agent gains over it.
 */
export const REAL_TRAJECTORY_BASE = "swe-agent_gpt4_lite";

/** The part of trajectories/manifest.json read here. */
export const TrajectoryManifestSchema = z.looseObject({
  systems: z.record(z.string(), z.looseObject({ resolved_in_extracted: z.array(z.string()) })),
  core_instance_set: z.looseObject({ ids: z.array(z.string()).min(1) }),
});
export type TrajectoryManifest = z.infer<typeof TrajectoryManifestSchema>;

/** Reads and checks shared/data/trajectories/manifest.json. */
export async function readTrajectoryManifest(dataDir: string): Promise<TrajectoryManifest> {
  const path = join(dataDir, "trajectories", "manifest.json");
  const parsed = TrajectoryManifestSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
  if (!parsed.success) throw new Error(`${path}: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

/** A run's solved tasks against the labels the manifest lists for it. */
export interface ManifestCheck {
  run: string;
  /** Resolved ids the manifest lists among the core tasks. */
  expected: number;
  solved: number;
  agrees: boolean;
  /** Listed by the manifest, not solved here. */
  notSolved: string[];
  /** Solved here, not listed by the manifest. */
  notListed: string[];
}

/** The four real runs analysed on their common tasks. */
export interface RealTrajectoryAnalysis {
  dataDir: string;
  /** The 41 core instances (manifest core_instance_set). */
  taskIds: string[];
  base: string;
  runs: RunRead[];
  breakdown: Breakdown;
  manifestCheck: ManifestCheck[];
  /** Files of any run that could not be used, with the run's name. */
  problems: (FileProblem & { run: string })[];
}

/**
 * Reads the four real runs of shared/data/trajectories, restricted to their 41 common tasks
 * (manifest core_instance_set), and computes the breakdown with `base` (default
 * REAL_TRAJECTORY_BASE) for the vs-base column; checks each run's solved tasks against the
 * resolved ids the manifest lists. What the failure-breakdown notebook and `npm run reproduce`
 * call; render with breakdownTable, outcomeChart, overlapHeatmap, pairwiseTable.
 *
 * Errors: the data folder or manifest cannot be read; a run has no labels.
 */
export async function analyzeRealTrajectories(
  options: { dataDir?: string; base?: string; breakdown?: BreakdownOptions; read?: Omit<ReadRunOptions, "tasks"> } = {},
): Promise<RealTrajectoryAnalysis> {
  const dataDir = options.dataDir ?? resolveDataDir();
  const manifest = await readTrajectoryManifest(dataDir);
  const taskIds = manifest.core_instance_set.ids;
  const tasks = new Set(taskIds);
  const base = options.base ?? REAL_TRAJECTORY_BASE;
  const runs: RunRead[] = [];
  for (const run of REAL_TRAJECTORY_RUNS)
    runs.push(await readRun({ ...run, dir: join(dataDir, "trajectories", run.name) }, { ...options.read, tasks }));
  const breakdown = breakdownRuns(
    runs.map((run) => runInputOf(run, { taskIds })),
    { ...options.breakdown, base, taskIds },
  );
  const manifestCheck = breakdown.rows.map((row): ManifestCheck => {
    const listed = new Set((manifest.systems[row.run]?.resolved_in_extracted ?? []).filter((id) => tasks.has(id)));
    const solved = new Set(row.ids.solved);
    const notSolved = [...listed].filter((id) => !solved.has(id)).sort();
    const notListed = [...solved].filter((id) => !listed.has(id)).sort();
    return {
      run: row.run,
      expected: listed.size,
      solved: solved.size,
      agrees: notSolved.length === 0 && notListed.length === 0,
      notSolved,
      notListed,
    };
  });
  const problems = runs.flatMap((run) => run.problems.map((problem) => ({ ...problem, run: run.name })));
  return { dataDir, taskIds, base, runs, breakdown, manifestCheck, problems };
}
