import { type LineSet, type LineSpan, lineCount, lineSetOf } from "./line-spans.js";

/**
 * The raw counts behind the span metrics of one instance (domain.md §3, span level), kept
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
  return overlapOfLineSets(lineSetOf(predicted, options), lineSetOf(gold, options));
}

/** `spanOverlap` on line sets already built (gold sets are built once per benchmark). */
export function overlapOfLineSets(predictedSet: LineSet, goldSet: LineSet): SpanOverlap {
  const result: SpanOverlap = {
    goldLines: lineCount(goldSet),
    predictedLines: lineCount(predictedSet),
    overlapLines: 0,
    tightnessSum: 0,
    tightnessCount: 0,
  };
  for (const [path, goldIntervals] of goldSet) {
    const predictedIntervals = predictedSet.get(path);
    if (predictedIntervals) compareFile(goldIntervals, predictedIntervals, result);
  }
  return result;
}

function compareFile(gold: [number, number][], predicted: [number, number][], into: SpanOverlap): void {
  let first = 0; // first predicted interval that may still overlap the current gold interval
  for (const [goldStart, goldEnd] of gold) {
    while (first < predicted.length && (predicted[first] as [number, number])[1] < goldStart) first += 1;
    let best = 0;
    for (let i = first; i < predicted.length; i += 1) {
      const [start, end] = predicted[i] as [number, number];
      if (start > goldEnd) break;
      const overlap = Math.min(end, goldEnd) - Math.max(start, goldStart) + 1;
      if (overlap <= 0) continue;
      into.overlapLines += overlap;
      const union = goldEnd - goldStart + 1 + (end - start + 1) - overlap;
      best = Math.max(best, overlap / union);
    }
    if (best > 0) {
      into.tightnessSum += best;
      into.tightnessCount += 1;
    }
  }
}

/** Coverage recall |L(P) ∩ L(G)| / |L(G)|; undefined when the gold covers no line (excluded). */
export function spanCoverageRecall(overlap: SpanOverlap): number | undefined {
  return overlap.goldLines === 0 ? undefined : overlap.overlapLines / overlap.goldLines;
}

/** Precision |L(P) ∩ L(G)| / |L(P)|; 0 when nothing is predicted (domain.md §3). */
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

export type { LineSet };

/**
 * `overlapOfLineSets(lineSetOf(predicted), gold)` without building the predicted line set:
 * the predicted spans are sorted in place of a scratch copy and merged on the fly, per file.
 * This is the scorer's hot path (a prediction's spans are new every run; gold sets are
 * prepared once); it is tested equal to `spanOverlap` on random spans.
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
