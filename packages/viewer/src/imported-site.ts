import { relative, resolve } from "node:path";
import { listTrajectories, type RunFormat, readTrajectory, summarizeFile } from "@loclab/analysis";
import type { SiteSource, SiteTrajectory } from "./run-site.js";
import { siteSummary } from "./site-summary.js";
import { appendRow, emptyRows, tableCells } from "./site-table.js";
import type { SiteColumn } from "./site-types.js";
import { buildTrajectoryView } from "./trajectory-view.js";

export const IMPORTED_COLUMNS: SiteColumn[] = [
  { name: "instance", type: "string", description: "the task's instance id" },
  { name: "cell", type: "string", description: "the folder's format (one cell)" },
  { name: "exit", type: "string", description: "the exit status as the log spells it" },
  { name: "patch", type: "number", description: "1 when the task ended with a non-empty patch" },
  { name: "turns", type: "number", description: "steps (model outputs)" },
  { name: "calls", type: "number", description: "tool calls, the submission left out" },
  { name: "tokens", type: "number", description: "prompt + completion tokens, when logged" },
  { name: "cost", type: "number", description: "dollars, when logged" },
  { name: "seconds", type: "number", description: "wall time, when the log has times" },
];

/**
 * A folder of imported trajectories (the formats @loclab/analysis reads: mini-swe-agent 1.x and
 * 2.x, SWE-agent, AutoCodeRover, SHERLOC, loclab) as a site of one cell: one row per
 * trajectory, each summarized in one streaming pass (one step in memory), each view made from
 * the analysis package's model when opened. No gold: an imported folder names no benchmark.
 */
export async function importedSite(
  folder: string,
  format: RunFormat,
  options: { revision?: number } = {},
): Promise<SiteSource> {
  const dir = resolve(folder);
  const entries = await listTrajectories(dir, format);
  const rows = emptyRows(IMPORTED_COLUMNS);
  const problems: string[] = [];
  const trajectories: SiteTrajectory[] = [];
  for (const entry of entries) {
    let summary: Awaited<ReturnType<typeof summarizeFile>>;
    try {
      summary = await summarizeFile({ path: entry.path, format, readOptions: {}, summaryOptions: {} });
    } catch (error) {
      problems.push(`${relative(dir, entry.path) || entry.path}: ${(error as Error).message}`);
      continue;
    }
    const id = trajectories.length;
    const calls = Object.entries(summary.toolCalls)
      .filter(([name]) => name !== "submit")
      .reduce((sum, [, count]) => sum + count, 0);
    appendRow(rows, {
      instance: summary.instanceId,
      cell: format,
      exit: summary.exitStatus,
      patch: Number(summary.hasPatch),
      turns: summary.steps,
      calls,
      tokens:
        summary.promptTokens === null && summary.completionTokens === null
          ? null
          : (summary.promptTokens ?? 0) + (summary.completionTokens ?? 0),
      cost: summary.costUsd,
      seconds: summary.seconds === null ? null : Math.round(summary.seconds * 100) / 100,
      t: id,
    });
    trajectories.push({
      id,
      file: entry.path,
      view: async () => {
        const trajectory = await readTrajectory(entry.path, format);
        return buildTrajectoryView({
          id,
          instanceId: trajectory.instanceId,
          cell: format,
          format: trajectory.format,
          source: relative(dir, entry.path) || entry.path,
          exit: trajectory.outcome.exitStatus,
          outcome: null,
          error: null,
          model: trajectory.model ?? null,
          steps: trajectory.steps,
          ...(trajectory.outcome.patch
            ? {
                repair: {
                  resolved: false,
                  status: "not evaluated",
                  patch: trajectory.outcome.patch,
                  goldPatch: null,
                  tests: [],
                },
              }
            : {}),
        });
      },
    });
  }
  const cells = tableCells(rows, {
    averaged: ["patch", "turns", "tokens", "seconds"],
    outcomeOf: (row) => String(rows.exit![row]),
    partsOf: () => ({ seed: null, control: "plain", arm: null, model: null }),
  });
  const summary = await siteSummary({
    title: `${format} trajectories in ${dir}`,
    source: { kind: "imported", dir, format },
    revision: options.revision,
    binary: "patch",
    columns: IMPORTED_COLUMNS,
    rows,
    cells,
    problems,
  });
  return { summary, trajectories };
}
