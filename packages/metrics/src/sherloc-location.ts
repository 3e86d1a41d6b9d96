/**
 * A location as SHERLOC's evaluator reads it (its field names kept, so its files and the
 * reference fixture compare as written): a file and, when given, an inclusive line range. An
 * entry without `start_line`/`end_line` counts at file level only, and one without
 * `file_path` (a `<locations>` line SHERLOC's parser kept as `raw` text) at neither, though
 * both count as predicted entries, as in SHERLOC's evaluator.
 */
export interface SherlocLocation {
  file_path?: string;
  start_line?: number;
  end_line?: number;
  raw?: string;
}

/** A location with a file and its whole range, the only kind the chunk scores read. */
export interface SherlocRange {
  file_path: string;
  start_line: number;
  end_line: number;
}

export function hasRange(location: SherlocLocation): location is SherlocLocation & SherlocRange {
  return location.file_path !== undefined && location.start_line !== undefined && location.end_line !== undefined;
}
