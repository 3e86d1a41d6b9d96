import { type LineSet, type LineSpan, lineSetOf } from "./line-spans.js";

/**
 * The raw counts behind the span metrics of one instance (docs/definitions.md §3, span level), kept
 * so that micro (pooled) forms can be summed across instances.
 */
export interface SpanOverlap {
  /** |L(G)| */
  goldLines: number;
  /** |L(P)| */
  predictedLines: number;
  /** |L(P) ∩ L(G)| */
  overlapLines: number;
  /** Σ over overlapped gold intervals of the best IoU with one predicted interval. */
  tightnessSum: number;
  /** Number of gold intervals some predicted interval overlaps. */
  tightnessCount: number;
}

/**
 * Compares predicted and gold spans as line sets (both merged into maximal intervals per
 * file first; see `lineSetOf`). Cost O((p + g) log(p + g)).
 *
 * @example spanOverlap([{ path: "a.py", startLine: 10, endLine: 19 }], [{ path: "a.py", startLine: 15, endLine: 24 }])
 * // { goldLines: 10, predictedLines: 10, overlapLines: 5, tightnessSum: 5 / 15, tightnessCount: 1 }
 */
export function spanOverlap(
  predicted: readonly LineSpan[],
  gold: readonly LineSpan[],
  options: { lineCounts?: ReadonlyMap<string, number> } = {},
): SpanOverlap {
  const { lineCounts } = options;
  const clipped = lineCounts ? predicted.flatMap((span) => clipSpan(span, lineCounts.get(span.path))) : predicted;
  return overlapWithGoldLineSet(clipped, lineSetOf(gold, options));
}

/** A span cut at its file's last line (validated first, so a bad span still names itself). */
function clipSpan(span: LineSpan, lastLine: number | undefined): LineSpan[] {
  lineSetOf([span]);
  if (lastLine === undefined || span.endLine <= lastLine) return [span];
  return span.startLine > lastLine ? [] : [{ ...span, endLine: lastLine }];
}

/** Coverage recall |L(P) ∩ L(G)| / |L(G)|; undefined when the gold covers no line (excluded). */
export function spanCoverageRecall(overlap: SpanOverlap): number | undefined {
  return overlap.goldLines === 0 ? undefined : overlap.overlapLines / overlap.goldLines;
}

/** Precision |L(P) ∩ L(G)| / |L(P)|; 0 when nothing is predicted (docs/definitions.md §3). */
export function spanPrecision(overlap: SpanOverlap): number {
  return overlap.predictedLines === 0 ? 0 : overlap.overlapLines / overlap.predictedLines;
}

/**
 * Average tightness: mean over overlapped gold intervals of the best IoU (1 = exact bounds);
 * undefined when no gold interval is overlapped (the instance is then excluded from it).
 */
export function spanTightness(overlap: SpanOverlap): number | undefined {
  return overlap.tightnessCount === 0 ? undefined : overlap.tightnessSum / overlap.tightnessCount;
}


/**
 * The overlap of predicted spans with a gold line set (built once per benchmark by
 * `lineSetOf`): the predicted spans are sorted in a scratch copy and merged on the fly, per
 * file, without building their line set — the scorer's hot path, since predictions are new
 * every run while gold is prepared once. Cost O(p log p + g).
 */
export function overlapWithGoldLineSet(predicted: readonly LineSpan[], gold: LineSet): SpanOverlap {
  const result: SpanOverlap = { goldLines: 0, predictedLines: 0, overlapLines: 0, tightnessSum: 0, tightnessCount: 0 };
  for (const intervals of gold.values()) for (const [start, end] of intervals) result.goldLines += end - start + 1;
  const n = predicted.length;
  if (n === 0) return result;
  const order = predicted.slice();
  for (const span of order) {
    if (!Number.isInteger(span.startLine) || !Number.isInteger(span.endLine) || span.startLine < 1 || span.endLine < span.startLine) {
      throw new RangeError(`invalid span ${span.path}:${span.startLine}-${span.endLine}: lines must be integers with 1 <= start <= end`);
    }
  }
  order.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.startLine - b.startLine));
  let i = 0;
  while (i < n) {
    const path = (order[i] as LineSpan).path;
    const goldIntervals = gold.get(path);
    const best = goldIntervals ? new Float64Array(goldIntervals.length) : undefined;
    let first = 0;
    let start = (order[i] as LineSpan).startLine;
    let end = (order[i] as LineSpan).endLine;
    i += 1;
    const flush = () => {
      result.predictedLines += end - start + 1;
      if (!goldIntervals || !best) return;
      while (first < goldIntervals.length && (goldIntervals[first] as [number, number])[1] < start) first += 1;
      for (let g = first; g < goldIntervals.length; g += 1) {
        const [goldStart, goldEnd] = goldIntervals[g] as [number, number];
        if (goldStart > end) break;
        const overlap = Math.min(end, goldEnd) - Math.max(start, goldStart) + 1;
        if (overlap <= 0) continue;
        result.overlapLines += overlap;
        const iou = overlap / (goldEnd - goldStart + 1 + (end - start + 1) - overlap);
        if (iou > (best[g] as number)) best[g] = iou;
      }
    };
    while (i < n && (order[i] as LineSpan).path === path) {
      const span = order[i] as LineSpan;
      if (span.startLine <= end + 1) end = Math.max(end, span.endLine);
      else {
        flush();
        start = span.startLine;
        end = span.endLine;
      }
      i += 1;
    }
    flush();
    if (best) {
      for (const value of best) {
        if (value > 0) {
          result.tightnessSum += value;
          result.tightnessCount += 1;
        }
      }
    }
  }
  return result;
}
