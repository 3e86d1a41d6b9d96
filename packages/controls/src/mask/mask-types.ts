/**
 * How much masking removes, in increasing strength:
 * - `paths-only`: file paths and file names only (a graded ablation below the control);
 * - `modules` (the default, the path-masking control of docs/definitions.md §4): also dotted
 *   module paths that resolve to repository files (`django.db.models.query`);
 * - `symbols`: also the gold symbols' names.
 * The name `paths` of earlier releases (paths only) is refused with a pointer to both, so that
 * an old script cannot silently get a different control.
 */
export type MaskLevel = "paths-only" | "modules" | "symbols";

/** The mask levels in increasing strength. */
export const MASK_LEVELS: readonly MaskLevel[] = ["paths-only", "modules", "symbols"];

/** The level used when none is given: what the definition of the control masks. */
export const DEFAULT_MASK_LEVEL: MaskLevel = "modules";

/**
 * What a replaced mention was:
 * - `path`: a token with directory separators (`django/db/models/query.py`,
 *   `C:\…\site-packages\django\db\models\query.py`, the path part of a URL), or a known
 *   top-level file written as its full repository path (`setup.py`);
 * - `module`: a dotted module path (`django.db.models.query`);
 * - `filename`: a bare file name (`query.py`, or `` `Makefile` `` in backticks);
 * - `symbol`: a gold symbol name (`_cstack`).
 */
export type MentionKind = "path" | "module" | "filename" | "symbol";

/** The mention kinds, in report order. */
export const MENTION_KINDS: readonly MentionKind[] = ["path", "module", "filename", "symbol"];

/**
 * What is known of a repository's files: the full file list when a checkout is at hand, or
 * (see `knownFilesFromInstance`) the files an instance's patches touch plus generic patterns.
 */
export interface KnownFiles {
  /** Repository-relative paths (`/` or `\` separated; a leading `./` is ignored). */
  files: readonly string[];
  /**
   * Generic patterns: package directories (`django`, `lib/matplotlib`, `src/_pytest`) under
   * which any file-looking path is taken to be a repository file even when it is not in
   * `files` (`…/site-packages/django/core/handlers/base.py` → `django/core/handlers/base.py`).
   * Applied to file-system path tokens only (not URLs, module paths or bare names), and marked
   * `inferred` in the report.
   */
  roots?: readonly string[];
}

/** A symbol whose name is masked at level `symbols`; a `GoldSymbol` fits. */
export interface MaskSymbol {
  name: string;
  /** The repository file the symbol lives in. */
  path: string;
}

export interface MaskIssuePathsOptions {
  /** A plain list of repository files, or files plus generic patterns. */
  knownFiles: readonly string[] | KnownFiles;
  /** Default `paths`. */
  level?: MaskLevel;
  /** Required at level `symbols`: the gold symbols (e.g. `goldFromPatch(...).symbols`). */
  symbols?: readonly MaskSymbol[];
}

/** One replaced mention. Offsets are in the original text, `end` exclusive. */
export interface MaskReplacement {
  kind: MentionKind;
  /** The original text at [start, end). */
  original: string;
  placeholder: string;
  /** The repository file the mention refers to (for a symbol, the file it lives in). */
  file: string;
  start: number;
  end: number;
  /** The file came from a generic pattern (`KnownFiles.roots`), not from the known file list. */
  inferred: boolean;
  /**
   * Other known files the mention fits equally well (a full checkout can hold several
   * `utils/base.py`); the mention is attributed to `file`, the first of them in a fixed order.
   */
  alternatives?: string[];
}

export interface MaskReport {
  level: MaskLevel;
  /** Sorted by `start`; no two overlap. */
  replacements: MaskReplacement[];
  /** Placeholder → the file it stands for, in order of first appearance. */
  placeholders: Record<string, string>;
  /** Number of replacements of each kind. */
  counts: Record<MentionKind, number>;
  /**
   * Path-like tokens that name a file (folders and a file name with an extension, e.g.
   * `numpy/core/fromnumeric.py`, or a path at a name the repository does not have) but resolve
   * to no known file, so they were left as written: with the base commit's full file list,
   * other projects' files and names that do not exist at base commit.
   */
  leftAlone: { text: string; start: number; end: number }[];
}

export interface MaskedIssue {
  text: string;
  report: MaskReport;
}
