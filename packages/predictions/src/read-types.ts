import type { JsonlLineError, Prediction } from "@loclab/schemas";

/**
 * The output formats loclab reads (data README, "localization/" rows):
 * - `locagent`: LocAgent's `loc_outputs.jsonl` (`found_files`, `found_modules`, `found_entities`);
 * - `agentless`: Agentless and the CoSIL family (`found_files`, `found_related_locs`);
 * - `blagent`: BLAgent's ranked file lists (`ranked_files`);
 * - `loclab`: loclab's own prediction JSONL (a `Prediction` plus `schemaVersion` per line);
 * - `sherloc`: SHERLOC's generation JSONL (`locations`, `status`, `reason`, `findings`, `turns`).
 */
export type PredictionFormat = "locagent" | "agentless" | "blagent" | "loclab" | "sherloc";

export const PREDICTION_FORMATS: readonly PredictionFormat[] = [
  "locagent",
  "agentless",
  "blagent",
  "loclab",
  "sherloc",
];

/** Options every reader takes. */
export interface ReadPredictionsOptions {
  /**
   * The benchmark's instance ids. Rows for other ids are still returned (so a caller can see
   * what the file holds) but listed in `report.unknownInstanceIds`; scoring joins on the
   * benchmark's ids, so they never count.
   */
  instanceIds?: ReadonlySet<string> | readonly string[];
  /** `stop` (default) throws a `JsonlLineError` naming file:line; `skip` reports bad lines in `report.skipped`. */
  onBadLine?: "stop" | "skip";
  /** The `owner/name` repository of an instance, for `normalizeRepoPath` (rules 6–8). */
  repoOf?: (instanceId: string) => string | undefined;
  /** The repository's files at base commit, so ambiguous prefixes are stripped only when they should be. */
  knownFilesOf?: (instanceId: string) => ReadonlySet<string> | undefined;
}

/**
 * What a reader did to a file, so that nothing is changed or dropped silently
 * (PredictionSchema leaves de-duplication and normalization to the readers, which report them).
 */
export interface ReadReport {
  /** The file read, as given. */
  file: string;
  format: PredictionFormat;
  /** Records read: non-blank lines that parsed (bad lines are in `skipped`, not counted here). */
  records: number;
  /** Entries dropped from a ranking (files, modules, functions) because they repeat an earlier one after normalization; the first occurrence is kept. */
  duplicatesRemoved: number;
  /** Paths (of files, modules, functions and locations) that normalization changed. */
  pathsNormalized: number;
  /** Entries dropped because nothing was left after normalization (`""`, `./`). */
  emptyEntriesDropped: number;
  /** Predictions whose file ranking is empty (the localizer gave no file). */
  emptyFileRankings: number;
  /**
   * Predictions that rank anything at a level beyond files (a non-empty module or function
   * ranking, at least one line-span location): 0 means the localizer does not predict that
   * level at all, which a table should show as blank, not as a score of 0.
   */
  levelsPredicted: { module: number; function: number; span: number };
  /** Ids not in `options.instanceIds` (when given), in file order; their predictions are returned. */
  unknownInstanceIds: string[];
  /** Ids seen on more than one line, in file order, once each; the first line's prediction is kept. */
  duplicateInstanceIds: string[];
  /** `found_related_locs` lines of kinds loclab does not rank (`variable: x`), or without a name; agentless format only. */
  ignoredLocLines: number;
  /** `ignoredLocLines` by kind: `variable`, or `<no name>` / `<no kind>` for lines with no name or no `kind:`. */
  ignoredLocKinds: Record<string, number>;
  /**
   * SHERLOC entries with no usable line range (a `{raw}` line, `L0`, a reversed range): kept
   * for the `sherloc` preset, left out of the prediction's spans; sherloc format only.
   */
  locationsWithoutRange?: number;
  /** `null` lines passed over (SHERLOC's evaluator keeps a failed line as `null`); sherloc format only. */
  nullLines?: number;
  /** Bad lines passed over with `onBadLine: "skip"` (always empty with `stop`). */
  skipped: JsonlLineError[];
}

/** A reader's named result: the predictions in file order, and the report. */
export interface ReadPredictionsResult {
  predictions: Prediction[];
  report: ReadReport;
}
