/**
 * The caps every tool works under. They bound what one call can cost (time, memory, the
 * model's context) and what one input may be. All are configurable per workspace; the
 * defaults are the ones the workbench runs with.
 */
export interface ToolLimits {
  /** view_file: most lines shown per call. */
  viewMaxLines: number;
  /** view_file: most characters of file text shown per call (line numbers not counted). */
  viewMaxChars: number;
  /** search_code: hits returned when the call gives no `maxHits`. */
  searchDefaultHits: number;
  /** search_code: the largest `maxHits` a tool call may ask for. */
  searchMaxHits: number;
  /** search_code: characters of a hit's line kept; longer lines are clipped around the match. */
  hitTextMaxChars: number;
  /** repo_tree: most entries (files and folders) listed. */
  treeMaxEntries: number;
  /** connected_tree: most files listed per direction. */
  connectedMaxFiles: number;
  /** Files larger than this are never read whole: they are streamed, and not cached. */
  maxFileBytes: number;
  /** Bytes of file content a workspace keeps in memory; beyond it the least recently used files are dropped. */
  maxCacheBytes: number;
  /** Longest path or glob accepted, in characters. */
  maxPathLength: number;
  /** Longest search query accepted, in characters. */
  maxQueryLength: number;
}

export const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = Object.freeze({
  viewMaxLines: 150,
  viewMaxChars: 10_000,
  searchDefaultHits: 50,
  searchMaxHits: 500,
  hitTextMaxChars: 300,
  treeMaxEntries: 400,
  connectedMaxFiles: 200,
  maxFileBytes: 4 * 1024 * 1024,
  maxCacheBytes: 512 * 1024 * 1024,
  maxPathLength: 1024,
  maxQueryLength: 1000,
});

/** The defaults with some limits replaced; every value must be a positive integer. */
export function toolLimits(overrides: Partial<ToolLimits> = {}): ToolLimits {
  const limits = { ...DEFAULT_TOOL_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`tool limit ${name} must be a positive integer, got ${String(value)}`);
  }
  return limits;
}
