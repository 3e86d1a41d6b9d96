/**
 * The version of every artifact loclab writes (predictions, gold, summaries, trajectories).
 *
 * Why a single number: readers check it at the boundary and refuse files written by an
 * incompatible release instead of misreading them. Bump it when a saved shape changes in
 * a way an older reader would misinterpret.
 */
export const SCHEMA_VERSION = 1 as const;
export type SchemaVersion = typeof SCHEMA_VERSION;
