import { ARTIFACT_KINDS, type ArtifactHeader, makeArtifact, type Provenance } from "@loclab/schemas";
import type { FileProblem } from "../read/file-problem.js";
import type { BreakdownRow } from "./breakdown-run.js";
import type { Breakdown, Overlap } from "./breakdown-runs.js";

/** The `kind` of a saved breakdown. */
export const TRAJECTORY_BREAKDOWN_KIND = ARTIFACT_KINDS.trajectoryBreakdown;

/** What a saved breakdown holds: every row in full (ids per column included), the overlap, the union, and the problems met. */
export interface TrajectoryBreakdownData {
  base: string | null;
  taskIds: string[] | null;
  rows: BreakdownRow[];
  overlap: Overlap;
  everSolved: number;
  everSolvedIds: string[];
  problems: (FileProblem & { run?: string })[];
  /** Anything else the writer wants kept beside it (e.g. the real runs' manifest check). */
  notes?: Record<string, unknown>;
}

/**
 * A breakdown as a saved artifact (`results/…json`): the versioned header with provenance
 * (makeArtifact) around the whole breakdown, so that a notebook or a later script can drill
 * into any column's task ids without re-reading the logs. Pure: the caller supplies provenance.
 */
export function breakdownArtifact(
  breakdown: Breakdown,
  provenance: Provenance,
  extra: { problems?: (FileProblem & { run?: string })[]; notes?: Record<string, unknown> } = {},
): ArtifactHeader & { data: TrajectoryBreakdownData } {
  return makeArtifact(
    TRAJECTORY_BREAKDOWN_KIND,
    {
      base: breakdown.base,
      taskIds: breakdown.taskIds,
      rows: breakdown.rows,
      overlap: breakdown.overlap,
      everSolved: breakdown.everSolved,
      everSolvedIds: breakdown.everSolvedIds,
      problems: extra.problems ?? [],
      ...(extra.notes ? { notes: extra.notes } : {}),
    },
    provenance,
  );
}
