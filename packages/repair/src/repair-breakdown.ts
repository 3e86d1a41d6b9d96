import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type Breakdown,
  type BreakdownOptions,
  breakdownRuns,
  type RunInput,
  summarizeFile,
  type TaskSummary,
} from "@loclab/analysis";
import { COUNTED_TOOLS } from "@loclab/fixer";
import { parseRunSpec, planRun } from "@loclab/runner";
import { cellLabel, isFinalOutcome, readRunFolder, type RunRecord, runLayout } from "@loclab/schemas";

export interface RepairBreakdownOptions {
  /** The row the others are compared with (McNemar); default the run's first cell. */
  base?: string;
  /** Any of the breakdown's rules (docs/definitions.md §8); the counted calls default to the fixer's four. */
  rules?: BreakdownOptions;
}

/** A key of the plan without a final record yet: it counts as "missing" (no patch) in its row. */
export interface OpenKey {
  cell: string;
  instanceId: string;
}

export interface RepairBreakdown {
  dir: string;
  /** FGL's Table 4 of the run: one row per cell (seed × arm), the pairwise overlap, the union of solved tasks. */
  breakdown: Breakdown;
  /** Per cell, its final records (the evaluation's verdicts and the fixer's exits). */
  records: Map<string, RunRecord[]>;
  open: OpenKey[];
  /** Trajectories that could not be read (named with the reason); their tasks count as missing. */
  problems: string[];
  /**
   * Per cell, the tasks whose final patch met a limit (`patch-too-large`, `log-over-limit`,
   * docs/definitions.md §9): wrong patches of their own kind, counted under wrong patch.
   */
  overLimit: Record<string, string[]>;
}

/** The verdicts of a patch that met a limit: a wrong patch of its own kind (never stored whole or never graded). */
export const OVER_LIMIT_STATUSES: ReadonlySet<string> = new Set(["patch-too-large", "log-over-limit"]);

/**
 * The failure breakdown of a repair run, from its folder alone (docs/definitions.md §8 and §9):
 * per cell of the run's plan, the final attempt of each key — its trajectory summarized by
 * the analysis package (exits, counted calls, loops, paths that do not exist, "No such file"),
 * its evaluation's verdict as the resolved label — then `breakdownRuns` over the cells: solved,
 * out of budget, wrong patch, no patch, median counted calls, loops with their seconds, bad
 * prefixes, ≥ 5 "No such file", each cell against the base with the exact McNemar test, the
 * union of solved tasks and the pairwise overlap. Every instance of the plan is a task of
 * every row: a key not done yet is missing (no patch), and listed in `open`.
 */
export async function repairBreakdown(dir: string, options: RepairBreakdownOptions = {}): Promise<RepairBreakdown> {
  const folder = await readRunFolder(dir);
  const spec = parseRunSpec(folder.manifest.spec, { source: runLayout.manifest(dir) });
  if (spec.kind !== "repair")
    throw new Error(`${dir}: a localization run (loclab breakdown reads it); the repair breakdown needs kind: repair`);
  const plan = await planRun(spec);
  const finals = new Map<string, RunRecord>();
  for (const record of folder.records) if (isFinalOutcome(record.outcome)) finals.set(record.key, record);
  const records = new Map<string, RunRecord[]>();
  const open: OpenKey[] = [];
  const problems: string[] = [];
  const runs: RunInput[] = [];
  const overLimit: Record<string, string[]> = {};
  for (const cell of plan.cells.map(cellLabel)) {
    const summaries: TaskSummary[] = [];
    const resolved = new Set<string>();
    const kept: RunRecord[] = [];
    for (const attempt of plan.attempts.filter((planned) => planned.cellLabel === cell)) {
      const record = finals.get(attempt.key);
      if (!record) {
        open.push({ cell, instanceId: attempt.instance.instance_id });
        continue;
      }
      kept.push(record);
      if (record.repair?.resolved) resolved.add(record.instanceId);
      const path = record.trajectory ? join(dir, record.trajectory) : undefined;
      if (!path || !existsSync(path)) {
        problems.push(`${cell} ${record.instanceId}: no trajectory${path ? ` at ${path}` : ""}`);
        continue;
      }
      try {
        // mini-swe-agent's cells keep its own trajectory format (`.traj.json`).
        const format = path.endsWith(".traj.json") ? "mini-swe-agent" : "loclab";
        const summary = await summarizeFile({ path, format, readOptions: {}, summaryOptions: {} });
        if (OVER_LIMIT_STATUSES.has(record.repair?.evaluation.status ?? "")) {
          // The stored patch of a patch-too-large is empty, yet the model did end with one.
          (overLimit[cell] ??= []).push(record.instanceId);
          summaries.push({ ...summary, hasPatch: true });
        } else summaries.push(summary);
      } catch (error) {
        problems.push(`${path}: ${(error as Error).message}`);
      }
    }
    records.set(cell, kept);
    runs.push({ name: cell, summaries, resolved });
  }
  const base = options.base ?? runs[0]?.name;
  const breakdown = breakdownRuns(runs, {
    calls: { only: COUNTED_TOOLS },
    ...options.rules,
    ...(base !== undefined ? { base } : {}),
    taskIds: plan.instances.map((instance) => instance.instance_id),
  });
  return { dir, breakdown, records, open, problems, overLimit };
}
