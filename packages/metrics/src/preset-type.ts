/** The ranking levels of docs/definitions.md §3. */
export type Level = "file" | "module" | "function";
export const LEVELS: readonly Level[] = ["file", "module", "function"];

/** Ranking metrics; `mrr` and `map` take no k (except under a peer rule that cuts at k). */
export type RankingMetric = "hit" | "acc" | "recall" | "precision" | "mrr" | "map";

export interface LevelRule {
  ks: readonly number[];
  metrics: readonly RankingMetric[];
  /** Only the first `cutoff` predictions are read for MRR and MAP (CoSIL: 5 files). */
  cutoff?: number;
}

/**
 * A scoring rule set: the unified definitions of docs/definitions.md §3, or a peer's published rules.
 * Presets are data; `scoreLocalization` applies them. Which gold a preset scores against
 * (the patch, or the peer's own gold file) is chosen by the caller: see `goldSource`.
 */
export interface Preset {
  name: "unified" | "locagent" | "blagent" | "cosil";
  /** The rule in words, with where it comes from. */
  description: string;
  /** Where the gold comes from, for the caller that builds it. */
  goldSource: "patch" | "locagent-gt-file-changes" | "patch-first-file" | "cosil-gt";
  levels: Partial<Record<Level, LevelRule>>;
  /** Score line spans (coverage recall, precision, tightness; macro and micro). */
  spans: boolean;
  /** Instance ids left out by the peer's own evaluation (counted as excluded). */
  excludedIds: ReadonlySet<string>;
  /** Exclude instances with empty gold at a level (docs/definitions.md §3); CoSIL keeps them as misses. */
  excludeEmptyGold: boolean;
  /** recall@k denominator: |G| (unified) or min(|G|, largest k of the level) (LocAgent). */
  recallDenominator: "gold" | "min-gold-max-k";
  /** MAP: (1/|G|)·Σ precision@r (unified), or LocAgent's MAP@k that divides by k. */
  mapRule: "gold" | "divide-by-k";
  /** Compare function-level ids by symbol name alone, without the path (CoSIL). */
  symbolMatch: "id" | "name-only";
  /** Drop a trailing `.__init__` from predicted function ids (LocAgent counts a constructor as its class). */
  stripInitSuffix: boolean;
  /** An instance whose prediction names no file misses at every level (CoSIL). */
  emptyFilesMeansMiss: boolean;
  /**
   * |G| counts repeated gold entries (LocAgent sizes its ideal vector by the length of its
   * gold list, which repeats some modules); otherwise |G| is the number of distinct items.
   */
  goldSizeCountsRepeats: boolean;
}
