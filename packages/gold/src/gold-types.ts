/**
 * A gold line span (docs/definitions.md §2): pre-image line numbers, 1-based, inclusive.
 * `removed`: a maximal run of removed lines. `insertion`: lines added with none removed,
 * anchored on the pre-image line just before them (line 1 for an insertion at the top).
 */
export interface GoldSpan {
  path: string;
  startLine: number;
  endLine: number;
  kind: "removed" | "insertion";
  /** Index into `GoldLocations.hunks`. */
  hunk: number;
  /**
   * Lines the span moved from the `@@` numbers when the patch was placed on the real pre-image
   * (`goldAtPreImage`); absent on patch-only gold.
   */
  offset?: number;
}

/** A `@@` hunk, kept for display (docs/definitions.md §2). */
export interface GoldHunk {
  /** Pre-image path (post-image path for a created file). */
  path: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  section: string;
  /** The hunk body as in the patch, markers included. */
  text: string;
  /** Real pre-image start − `oldStart`, when placed on the pre-image (`goldAtPreImage`). */
  offset?: number;
}

/** The text of a hunk's `+` lines (FGL's y+, docs/definitions.md §5), in order, without markers. */
export interface GoldAddedLines {
  /** Post-image path. */
  path: string;
  hunk: number;
  lines: string[];
}

/**
 * A symbol guessed from the `@@ … @@ def name(` section of a hunk header. Always
 * `approximate`: git names the last definition line above the hunk, which may be a sibling
 * of the edited code rather than its container. A parser over a checkout gives exact symbols.
 */
export interface GoldSymbol {
  path: string;
  name: string;
  kind: "function" | "class" | "impl";
  hunk: number;
  approximate: true;
  source: "hunk-header";
}

/**
 * A definition of the pre-image source (a function, method or class), as a parser of the
 * file's language reports it: what exact gold symbols are attributed to.
 */
export interface SourceDefinition {
  /** Dotted from the outermost definition: `Class.method.inner`. */
  qualifiedName: string;
  kind: "function" | "class";
  /** 1-based, inclusive; the first decorator's line when decorated. */
  startLine: number;
  endLine: number;
  /** Column of the definition's first line (its indentation). */
  indent: number;
}

/** An exact gold entity: the innermost definition around changed lines of the pre-image. */
export interface ExactGoldSymbol {
  path: string;
  /** `Class.method.inner`. */
  name: string;
  kind: "function" | "class";
  startLine: number;
  endLine: number;
  /** Indexes into `GoldLocations.hunks` of the hunks that change it. */
  hunks: number[];
}

/** Gold symbols from parsing the pre-image (docs/definitions.md §2), with what fell outside any definition. */
export interface ExactGold {
  symbols: ExactGoldSymbol[];
  /** `path:Class.method.inner` of every symbol, in patch order: the function-level gold. */
  functions: string[];
  /** `path:Top` (the outermost definition) of every symbol, de-duplicated: the module-level gold. */
  modules: string[];
  /** Changed pre-image lines (insertions: their anchor line) inside no definition: imports, module constants. */
  moduleLevel: { path: string; line: number; hunk: number }[];
  /** Gold files the parser does not read (not Python): files, spans, no symbols. */
  unparsedFiles: string[];
}

/** Why a gold file's hunks could not be placed on the real pre-image (its spans keep the `@@` numbers). */
export interface UnplacedFile {
  path: string;
  reason: string;
}

/** Everything docs/definitions.md §2 derives from one gold patch. */
export interface GoldLocations {
  instanceId: string;
  /**
   * What the spans' line numbers are: `patch-header`, the `@@` numbers (no checkout); or
   * `pre-image`, the lines of the real file at base commit, after placing each hunk as `git
   * apply` does (`goldAtPreImage`). Absent means `patch-header`.
   */
  lines?: "patch-header" | "pre-image";
  /** Files the patch modifies, deletes or renames (a pre-image exists): the localization targets. */
  files: string[];
  /** Files the patch creates (or copies to): recorded, not targets. */
  created: string[];
  deleted: string[];
  renamed: { from: string; to: string }[];
  /** Files whose change is binary: in `files` or `created`, with no spans. */
  binary: string[];
  spans: GoldSpan[];
  hunks: GoldHunk[];
  addedLines: GoldAddedLines[];
  symbols: GoldSymbol[];
  /** Files whose hunks did not apply to the pre-image (their spans keep the patch's numbers). */
  unplaced?: UnplacedFile[];
  /** Symbols from parsing the pre-image, when it was at hand. */
  exact?: ExactGold;
}
