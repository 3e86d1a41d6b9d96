import type { Interner } from "./interner.js";
import type { LineSet, LineSpan } from "./line-spans.js";
import type { SpanOverlap } from "./span-overlap-counts.js";

/** A gold line set with its paths as codes: intervals of path `paths[p]` are `flat[2j], flat[2j+1]` for j in [offsets[p], offsets[p+1]). */
export interface CodedLineSet {
  paths: Int32Array;
  offsets: Int32Array;
  flat: Int32Array;
  goldLines: number;
}

/** `lineSet` with its paths coded by `interner` (same intervals, same order). */
export function codeLineSet(lineSet: LineSet, interner: Interner): CodedLineSet {
  const paths = new Int32Array(lineSet.size);
  const offsets = new Int32Array(lineSet.size + 1);
  let intervals = 0;
  for (const list of lineSet.values()) intervals += list.length;
  const flat = new Int32Array(2 * intervals);
  let p = 0;
  let j = 0;
  let goldLines = 0;
  for (const [path, list] of lineSet) {
    paths[p] = interner.code(path);
    offsets[p] = j;
    for (const [start, end] of list) {
      flat[2 * j] = start;
      flat[2 * j + 1] = end;
      goldLines += end - start + 1;
      j += 1;
    }
    p += 1;
  }
  offsets[p] = j;
  return { paths, offsets, flat, goldLines };
}

/**
 * The overlap of predicted spans with coded gold (the counts of `SpanOverlap`), with scratch
 * buffers reused across instances: the predicted spans are coded, sorted by (path code,
 * start) and merged per file on the fly, without building their line set. Cost O(p² + g) for
 * p predicted spans (an insertion sort: a prediction holds a handful).
 */
export class CodedSpanScorer {
  private pathOf = new Int32Array(64);
  private startOf = new Int32Array(64);
  private endOf = new Int32Array(64);
  private order = new Int32Array(64);
  private best = new Float64Array(64);

  constructor(private readonly interner: Interner) {}

  overlap(predicted: readonly LineSpan[], gold: CodedLineSet): SpanOverlap {
    const result: SpanOverlap = {
      goldLines: gold.goldLines,
      predictedLines: 0,
      overlapLines: 0,
      tightnessSum: 0,
      tightnessCount: 0,
    };
    const n = predicted.length;
    if (n === 0) return result;
    if (n > this.order.length) this.growSpans(n);
    const { pathOf, startOf, endOf, order } = this;
    for (let i = 0; i < n; i += 1) {
      const span = predicted[i] as LineSpan;
      if (
        !Number.isInteger(span.startLine) ||
        !Number.isInteger(span.endLine) ||
        span.startLine < 1 ||
        span.endLine < span.startLine
      ) {
        throw new RangeError(
          `invalid span ${span.path}:${span.startLine}-${span.endLine}: lines must be integers with 1 <= start <= end`,
        );
      }
      pathOf[i] = this.interner.code(span.path);
      startOf[i] = span.startLine;
      endOf[i] = span.endLine;
      order[i] = i;
    }
    // Insertion sort: a prediction holds a handful of spans.
    for (let i = 1; i < n; i += 1) {
      const item = order[i] as number;
      const path = pathOf[item] as number;
      const start = startOf[item] as number;
      let j = i - 1;
      while (j >= 0) {
        const other = order[j] as number;
        const otherPath = pathOf[other] as number;
        if (otherPath < path || (otherPath === path && (startOf[other] as number) <= start)) break;
        order[j + 1] = other;
        j -= 1;
      }
      order[j + 1] = item;
    }
    const intervals = gold.flat.length / 2;
    if (intervals > this.best.length) this.best = new Float64Array(2 * intervals);
    const best = this.best;
    best.fill(0, 0, intervals);
    const { flat } = gold;
    let i = 0;
    while (i < n) {
      const path = pathOf[order[i] as number] as number;
      let from = 0;
      let to = 0;
      for (let p = 0; p < gold.paths.length; p += 1) {
        if (gold.paths[p] === path) {
          from = gold.offsets[p] as number;
          to = gold.offsets[p + 1] as number;
          break;
        }
      }
      let first = from;
      let start = startOf[order[i] as number] as number;
      let end = endOf[order[i] as number] as number;
      i += 1;
      for (;;) {
        const more = i < n && pathOf[order[i] as number] === path;
        const nextStart = more ? (startOf[order[i] as number] as number) : 0;
        if (more && nextStart <= end + 1) {
          end = Math.max(end, endOf[order[i] as number] as number);
          i += 1;
          continue;
        }
        // Flush the merged interval [start, end] against the path's gold intervals.
        result.predictedLines += end - start + 1;
        while (first < to && (flat[2 * first + 1] as number) < start) first += 1;
        for (let g = first; g < to; g += 1) {
          const goldStart = flat[2 * g] as number;
          const goldEnd = flat[2 * g + 1] as number;
          if (goldStart > end) break;
          const overlap = Math.min(end, goldEnd) - Math.max(start, goldStart) + 1;
          if (overlap <= 0) continue;
          result.overlapLines += overlap;
          const iou = overlap / (goldEnd - goldStart + 1 + (end - start + 1) - overlap);
          if (iou > (best[g] as number)) best[g] = iou;
        }
        if (!more) break;
        start = nextStart;
        end = endOf[order[i] as number] as number;
        i += 1;
      }
    }
    for (let g = 0; g < intervals; g += 1) {
      const value = best[g] as number;
      if (value > 0) {
        result.tightnessSum += value;
        result.tightnessCount += 1;
      }
    }
    return result;
  }

  private growSpans(n: number): void {
    const size = 2 * n;
    this.pathOf = new Int32Array(size);
    this.startOf = new Int32Array(size);
    this.endOf = new Int32Array(size);
    this.order = new Int32Array(size);
  }
}
