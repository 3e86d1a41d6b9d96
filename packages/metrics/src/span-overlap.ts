import { CodedSpanScorer, codeLineSet } from "./coded-spans.js";
import { Interner } from "./interner.js";
import { type LineSet, type LineSpan, lineSetOf } from "./line-spans.js";
import type { SpanOverlap } from "./span-overlap-counts.js";

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
 * The overlap of predicted spans with a gold line set (built by `lineSetOf`): the scorer's
 * coded form (`CodedSpanScorer`), with the gold's paths coded for this one call. The scorer
 * itself codes gold once per run set and keeps its buffers.
 */
export function overlapWithGoldLineSet(predicted: readonly LineSpan[], gold: LineSet): SpanOverlap {
  const interner = new Interner();
  return new CodedSpanScorer(interner).overlap(predicted, codeLineSet(gold, interner));
}
