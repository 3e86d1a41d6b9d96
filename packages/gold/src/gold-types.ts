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

/** Everything docs/definitions.md §2 derives from one gold patch. */
export interface GoldLocations {
  instanceId: string;
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
}
