/** A file plus a 1-based, inclusive line range (gold spans and predicted locations alike). */
export interface LineSpan {
  path: string;
  startLine: number;
  endLine: number;
}

/** Disjoint, sorted [start, end] intervals per file. */
export type LineSet = Map<string, [number, number][]>;

/**
 * The set of (file, line) pairs a list of spans covers, kept as maximal intervals per file:
 * overlapping and adjacent spans are merged, so that every span metric is a function of the
 * covered lines alone (splitting a span, or merging overlapping ones, changes nothing).
 * Interval arithmetic keeps the cost O(s log s) however long the spans are.
 *
 * `lineCounts` (file → number of lines, when a checkout is at hand) clips spans that run past
 * the end of their file; without it, lines past the end are counted as predicted lines that
 * cover no gold. Non-integer, non-positive or reversed spans throw, naming the span.
 */
export function lineSetOf(
  spans: readonly LineSpan[],
  options: { lineCounts?: ReadonlyMap<string, number> } = {},
): LineSet {
  const byFile = new Map<string, [number, number][]>();
  for (const span of spans) {
    const { path, startLine, endLine } = span;
    if (!Number.isInteger(startLine) || !Number.isInteger(endLine) || startLine < 1 || endLine < startLine) {
      throw new RangeError(
        `invalid span ${path}:${startLine}-${endLine}: lines must be integers with 1 <= start <= end`,
      );
    }
    const limit = options.lineCounts?.get(path);
    const end = limit === undefined ? endLine : Math.min(endLine, limit);
    if (end < startLine) continue;
    const list = byFile.get(path);
    if (list) list.push([startLine, end]);
    else byFile.set(path, [[startLine, end]]);
  }
  for (const [path, intervals] of byFile) byFile.set(path, mergeIntervals(intervals));
  return byFile;
}

function mergeIntervals(intervals: [number, number][]): [number, number][] {
  intervals.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const [start, end] of intervals) {
    const last = merged.at(-1);
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** Number of lines a line set covers. */
export function lineCount(set: LineSet): number {
  let total = 0;
  for (const intervals of set.values()) for (const [start, end] of intervals) total += end - start + 1;
  return total;
}
