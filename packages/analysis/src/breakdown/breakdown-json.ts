import type { BreakdownRow } from "./breakdown-run.js";
import type { Breakdown } from "./breakdown-runs.js";

/** One run in the CLI's JSON (`loclab breakdown --json`): the breakdown row's counts, vs. base without its ids. */
export type BreakdownJsonRow = Pick<
  BreakdownRow,
  | "run"
  | "tasks"
  | "solved"
  | "outOfBudget"
  | "wrongPatch"
  | "noPatch"
  | "medianCalls"
  | "loops"
  | "loopsFinishLength"
  | "loopsRepeatedLine"
  | "badPrefix"
  | "noFile"
> & { vsBase: { baseOnly: number; runOnly: number; p: number } | null };

/** What `loclab breakdown --json` prints. */
export interface BreakdownJson {
  runs: BreakdownJsonRow[];
  base: string | null;
  overlap: {
    runs: string[];
    both: number[][];
    pairs: { a: string; b: string; n: number; both: number; aOnly: number; bOnly: number; p: number; pHolm: number }[];
  };
  everSolved: number;
}

/**
 * The breakdown as the CLI prints it with --json (issue 8 item 4): per run the columns and
 * vs-base {baseOnly, runOnly, p} (null for the base and without a base); the overlap matrix of
 * both-solved counts with the pairwise McNemar tests; the number of tasks ever solved. The ids
 * per column stay in the Breakdown, for notebooks.
 */
export function breakdownJson(breakdown: Breakdown): BreakdownJson {
  return {
    runs: breakdown.rows.map((row) => ({
      run: row.run,
      tasks: row.tasks,
      solved: row.solved,
      outOfBudget: row.outOfBudget,
      wrongPatch: row.wrongPatch,
      noPatch: row.noPatch,
      medianCalls: row.medianCalls,
      loops: row.loops,
      loopsFinishLength: row.loopsFinishLength,
      loopsRepeatedLine: row.loopsRepeatedLine,
      badPrefix: row.badPrefix,
      noFile: row.noFile,
      vsBase: row.vsBase ? { baseOnly: row.vsBase.baseOnly, runOnly: row.vsBase.runOnly, p: row.vsBase.p } : null,
    })),
    base: breakdown.base,
    overlap: {
      runs: breakdown.overlap.runs,
      both: breakdown.overlap.both,
      pairs: breakdown.overlap.pairs.map(({ a, b, n, both, aOnly, bOnly, p, pHolm }) => ({
        a,
        b,
        n,
        both,
        aOnly,
        bOnly,
        p,
        pHolm,
      })),
    },
    everSolved: breakdown.everSolved,
  };
}
