import { exactMcNemar, pairedTable, pairwiseMcNemar } from "@loclab/statistics";
import type { BreakdownOptions } from "./breakdown-options.js";
import { type BreakdownRow, breakdownRun, type RunInput } from "./breakdown-run.js";

/** Two runs' solved sets compared on their shared tasks. */
export interface OverlapPair {
  a: string;
  b: string;
  /** Shared tasks. */
  n: number;
  both: number;
  aOnly: number;
  bOnly: number;
  neither: number;
  /** both / (both + aOnly + bOnly); null when neither solved any. */
  jaccard: number | null;
  /** Exact McNemar p of aOnly vs bOnly. */
  p: number;
  /** Holm-adjusted over all pairs. */
  pHolm: number;
}

/** The pairwise overlap of solved sets. */
export interface Overlap {
  runs: string[];
  /** both[i][j]: tasks solved by runs i and j (the diagonal: solved by run i). */
  both: number[][];
  /** Every unordered pair once, in run order. */
  pairs: OverlapPair[];
}

/** The whole breakdown: one row per run, the overlap of solved sets, and their union. */
export interface Breakdown {
  rows: BreakdownRow[];
  base: string | null;
  /** The task list every run was restricted to, when one was given. */
  taskIds: string[] | null;
  overlap: Overlap;
  /** Tasks solved by at least one run. */
  everSolved: number;
  everSolvedIds: string[];
}

function solvedMap(row: Omit<BreakdownRow, "vsBase">): Map<string, boolean> {
  const solved = new Set(row.ids.solved);
  return new Map(row.ids.tasks.map((id) => [id, solved.has(id)]));
}

/**
 * The failure breakdown of several runs (docs/definitions.md §8, issue 8 item 2), pure:
 * - one row per run (breakdownRun), over `taskIds` when given (each run restricted to them;
 *   a task a run has no trajectory for is "missing" and counts as no patch unless labelled
 *   solved), else over each run's own tasks;
 * - vs. base: on the tasks the run shares with `base`, solved by the base only (b), by the run
 *   only (c), and the exact McNemar p (pairedTable + exactMcNemar);
 * - the overlap: for every pair of runs the same paired table (pairwiseMcNemar of
 *   @loclab/statistics, the one used for leaderboards too), with Holm-adjusted p over all
 *   pairs; and the union of solved tasks (everSolved).
 *
 * Errors: no runs; two runs with one name; a base that is not one of the runs.
 *
 * @example breakdownRuns([{ name: "a", summaries, resolved }, …], { base: "a", taskIds })
 */
export function breakdownRuns(
  runs: readonly RunInput[],
  options: BreakdownOptions & { base?: string; taskIds?: readonly string[] } = {},
): Breakdown {
  if (runs.length === 0) throw new Error("breakdownRuns requires at least one run");
  const names = runs.map((run) => run.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate !== undefined) throw new Error(`breakdownRuns: two runs are named ${JSON.stringify(duplicate)}`);
  if (options.base !== undefined && !names.includes(options.base))
    throw new Error(
      `breakdownRuns: the base ${JSON.stringify(options.base)} is not one of the runs (${names.join(", ")})`,
    );
  const partial = runs.map((run) => breakdownRun(run, options));
  const maps = partial.map(solvedMap);
  const baseIndex = options.base === undefined ? -1 : names.indexOf(options.base);
  const rows: BreakdownRow[] = partial.map((row, i) => {
    if (baseIndex < 0 || i === baseIndex) return { ...row, vsBase: null };
    const table = pairedTable({
      a: maps[baseIndex] as Map<string, boolean>,
      b: maps[i] as Map<string, boolean>,
      intersect: true,
    });
    const { p } = exactMcNemar({ b: table.aOnly, c: table.bOnly });
    return {
      ...row,
      vsBase: { base: options.base as string, n: table.n, baseOnly: table.aOnly, runOnly: table.bOnly, p },
    };
  });
  const tableOf = (i: number, j: number) =>
    pairedTable({ a: maps[i] as Map<string, boolean>, b: maps[j] as Map<string, boolean>, intersect: true });
  const both = partial.map(() => partial.map(() => 0));
  partial.forEach((_, i) => {
    (both[i] as number[])[i] = tableOf(i, i).bothSolved;
  });
  const pairs: OverlapPair[] = pairwiseMcNemar(partial.length, tableOf).map((pair) => {
    (both[pair.a] as number[])[pair.b] = pair.bothSolved;
    (both[pair.b] as number[])[pair.a] = pair.bothSolved;
    const union = pair.bothSolved + pair.aOnly + pair.bOnly;
    return {
      a: names[pair.a] as string,
      b: names[pair.b] as string,
      n: pair.n,
      both: pair.bothSolved,
      aOnly: pair.aOnly,
      bOnly: pair.bOnly,
      neither: pair.neither,
      jaccard: union === 0 ? null : pair.bothSolved / union,
      p: pair.p,
      pHolm: pair.pHolm,
    };
  });
  const everSolved = new Set<string>();
  for (const row of partial) for (const id of row.ids.solved) everSolved.add(id);
  return {
    rows,
    base: options.base ?? null,
    taskIds: options.taskIds ? [...new Set(options.taskIds)] : null,
    overlap: { runs: names, both, pairs },
    everSolved: everSolved.size,
    everSolvedIds: [...everSolved].sort(),
  };
}
