/**
 * The `kind` of every file loclab writes, in one naming scheme (`loclab.<what>`), so that a
 * reader can tell what a file is before it parses the rest. The names a version before 0.2.0
 * wrote are in `LEGACY_ARTIFACT_KINDS`: readers accept them, writers never write them.
 */
export const ARTIFACT_KINDS = {
  /** `trajectories/…/attempt-<n>.traj.jsonl`: the header line of a trajectory. */
  trajectory: "loclab.trajectory",
  /** `attempts.jsonl`: one line per attempt of a run (the ledger). */
  runRecord: "loclab.run-record",
  /** `manifest.json` of a run folder. */
  runManifest: "loclab.run-manifest",
  /** `sessions.jsonl`: one line per start or resume of a run. */
  runSession: "loclab.run-session",
  /** `controls/mismatch-<seed>.json`: the mismatch control's pairing of a run's instances. */
  mismatchPairing: "loclab.mismatch-pairing",
  /** `results/score.json`: what `loclab run score` computed. */
  runScore: "loclab.run-score",
  /** `fleet.json` of `loclab vllm up`. */
  vllmFleet: "loclab.vllm-fleet",
  /** `.loclab-workspace.json` of a materialized tree in the workspace cache. */
  workspace: "loclab.workspace",
  /** The failure breakdown of trajectories (`loclab breakdown --json`, the analysis package). */
  trajectoryBreakdown: "loclab.trajectory-breakdown",
  /** `results/gold.json` of `npm run reproduce`. */
  goldSummary: "loclab.gold-summary",
  /** `results/leaderboard.json` of `npm run reproduce`. */
  localizationLeaderboard: "loclab.localization-leaderboard",
  /** `results/significance.json` of `npm run reproduce`. */
  leaderboardSignificance: "loclab.leaderboard-significance",
} as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[keyof typeof ARTIFACT_KINDS];

/** Kinds written by loclab 0.1.0, read as the kind they became (`isArtifactKind`). */
const LEGACY_ARTIFACT_KINDS: Readonly<Record<string, ArtifactKind>> = {
  "loclab-workspace": ARTIFACT_KINDS.workspace,
  "trajectory-breakdown": ARTIFACT_KINDS.trajectoryBreakdown,
  "gold-summary": ARTIFACT_KINDS.goldSummary,
  "localization-leaderboard": ARTIFACT_KINDS.localizationLeaderboard,
  "leaderboard-significance": ARTIFACT_KINDS.leaderboardSignificance,
};

/** Whether `value` names `kind`: the kind itself, or the name loclab 0.1.0 wrote for it. */
export function isArtifactKind(value: unknown, kind: ArtifactKind): boolean {
  return value === kind || (typeof value === "string" && LEGACY_ARTIFACT_KINDS[value] === kind);
}
