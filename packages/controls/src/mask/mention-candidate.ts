import type { MentionKind } from "./mask-types.js";

/**
 * A span of the issue text that names a repository file (or a gold symbol), before overlaps
 * are resolved and placeholders are given. Offsets are in the original text, `end` exclusive.
 */
export interface MentionCandidate {
  kind: MentionKind;
  start: number;
  end: number;
  file: string;
  inferred: boolean;
  alternatives: string[];
  /** For symbols: the name (symbols get placeholders per name, files per file). */
  symbol?: string;
}

/** A span of text, `end` exclusive. */
export interface TextSpan {
  start: number;
  end: number;
}
