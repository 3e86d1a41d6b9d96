import { type SherlocLocation, hasRange } from "./sherloc-location.js";

/** SHERLOC's chunk scores of one generation (its key names): ratios in [0, 1] and their counts. */
export interface SherlocChunkScores {
  /** Gold chunks contained by some predicted range of the same file, over gold chunks. */
  coverage_recall: number;
  /** Over contained gold chunks: gold length / length of the tightest containing range, averaged (0 when none). */
  avg_prediction_tightness: number;
  /** Predicted ranges that contain at least one gold chunk, over predicted ranges. */
  precision: number;
  covered_chunks: number;
  total_chunks: number;
  useful_predictions: number;
  total_predictions: number;
  /** Gold chunks matched at any degree (containment, IoU ≥ threshold, near miss), over gold chunks. */
  overlap_recall: number;
  /** Mean match quality over matched gold chunks (1 contained, the IoU, or the near-miss score). */
  avg_overlap_score: number;
  /** Predicted ranges useful at any degree, over predicted ranges. */
  partial_precision: number;
  partial_covered_chunks: number;
  near_miss_chunks: number;
  all_matched_chunks: number;
  partial_useful_predictions: number;
}

export interface SherlocChunkOptions {
  /** IoU at or above which a range that does not contain a chunk still matches it. Default 0.8. */
  overlapThreshold?: number;
  /** Endpoint distance, in lines, of a near miss. Default 1. */
  nearMissTolerance?: number;
}

/** IoU of two inclusive line ranges (SHERLOC's `calculate_line_overlap`). */
export function lineRangeIoU(goldStart: number, goldEnd: number, start: number, end: number): number {
  const from = Math.max(goldStart, start);
  const to = Math.min(goldEnd, end);
  if (from > to) return 0;
  return (to - from + 1) / (Math.max(goldEnd, end) - Math.min(goldStart, start) + 1);
}

/** The scores of an instance with nothing to compare: every ratio 0, the counts given. */
export function emptyChunkScores(totalChunks: number, totalPredictions: number): SherlocChunkScores {
  return {
    coverage_recall: 0,
    avg_prediction_tightness: 0,
    precision: 0,
    covered_chunks: 0,
    total_chunks: totalChunks,
    useful_predictions: 0,
    total_predictions: totalPredictions,
    overlap_recall: 0,
    avg_overlap_score: 0,
    partial_precision: 0,
    partial_covered_chunks: 0,
    near_miss_chunks: 0,
    all_matched_chunks: 0,
    partial_useful_predictions: 0,
  };
}

/**
 * SHERLOC's `evaluate_chunk_containment_metrics` (NVIDIA-NeMo/Skills, `recipes/sherloc/
 * evaluation/sherloc.py`), replayed as written, its order-dependent steps included: each
 * gold chunk looks at every predicted range of its file in list order; a range that contains
 * it covers it (tightness kept at the best); else a range with IoU ≥ the threshold matches it
 * partially; else, while neither has happened yet, a range with an endpoint within the
 * tolerance is a near miss (scored 0.9 × IoU, or 0.5 × (1 − mean endpoint distance /
 * (tolerance + 1)) when disjoint). Repeated predicted ranges count once each. With no gold or
 * no prediction every ratio is 0 and only the counts are filled (`total_predictions` is the
 * whole list's length there, as SHERLOC writes it).
 */
export function sherlocChunkScores(
  gold: readonly SherlocLocation[],
  predicted: readonly SherlocLocation[],
  options: SherlocChunkOptions = {},
): SherlocChunkScores {
  const threshold = options.overlapThreshold ?? 0.8;
  const tolerance = options.nearMissTolerance ?? 1;
  if (gold.length === 0) return emptyChunkScores(0, predicted.length);
  if (predicted.length === 0) return emptyChunkScores(gold.length, 0);
  const covered = new Set<number>();
  const partial = new Set<number>();
  const nearMiss = new Set<number>();
  const useful = new Set<number>();
  const partialUseful = new Set<number>();
  const tightness: number[] = [];
  const overlapScores: number[] = [];
  gold.forEach((chunk, goldIndex) => {
    if (!hasRange(chunk)) return;
    const { file_path: file, start_line: goldStart, end_line: goldEnd } = chunk;
    let bestTightness = 0;
    let bestOverlap = 0;
    let foundCoverage = false;
    let foundPartial = false;
    let foundNearMiss = false;
    predicted.forEach((range, index) => {
      if (!hasRange(range) || range.file_path !== file) return;
      const { start_line: start, end_line: end } = range;
      const overlap = lineRangeIoU(goldStart, goldEnd, start, end);
      if (start <= goldStart && end >= goldEnd) {
        foundCoverage = true;
        useful.add(index);
        const length = end - start + 1;
        const ratio = length > 0 ? (goldEnd - goldStart + 1) / length : 0;
        if (ratio > bestTightness) bestTightness = ratio;
      } else if (overlap >= threshold) {
        foundPartial = true;
        partialUseful.add(index);
        if (overlap > bestOverlap) bestOverlap = overlap;
      } else if (!foundPartial && !foundCoverage) {
        const startDistance = Math.abs(start - goldStart);
        const endDistance = Math.abs(end - goldEnd);
        if (startDistance <= tolerance || endDistance <= tolerance) {
          foundNearMiss = true;
          partialUseful.add(index);
          const score =
            overlap > 0 ? overlap * 0.9 : Math.max(0, 0.5 * (1 - (startDistance + endDistance) / 2 / (tolerance + 1)));
          if (score > bestOverlap) bestOverlap = score;
        }
      }
    });
    if (foundCoverage) {
      covered.add(goldIndex);
      tightness.push(bestTightness);
      overlapScores.push(1);
    } else if (foundPartial) {
      partial.add(goldIndex);
      overlapScores.push(bestOverlap);
    } else if (foundNearMiss) {
      nearMiss.add(goldIndex);
      overlapScores.push(bestOverlap);
    }
  });
  const totalGold = gold.filter(hasRange).length;
  const totalPredicted = predicted.filter(hasRange).length;
  const matched = new Set([...covered, ...partial, ...nearMiss]);
  const anyUseful = new Set([...useful, ...partialUseful]);
  return {
    coverage_recall: totalGold > 0 ? covered.size / totalGold : 0,
    avg_prediction_tightness: tightness.length > 0 ? sumInOrder(tightness) / tightness.length : 0,
    precision: totalPredicted > 0 ? useful.size / totalPredicted : 0,
    covered_chunks: covered.size,
    total_chunks: totalGold,
    useful_predictions: useful.size,
    total_predictions: totalPredicted,
    overlap_recall: totalGold > 0 ? matched.size / totalGold : 0,
    avg_overlap_score: overlapScores.length > 0 ? sumInOrder(overlapScores) / overlapScores.length : 0,
    partial_precision: totalPredicted > 0 ? anyUseful.size / totalPredicted : 0,
    partial_covered_chunks: partial.size,
    near_miss_chunks: nearMiss.size,
    all_matched_chunks: matched.size,
    partial_useful_predictions: anyUseful.size,
  };
}

/**
 * Python's `sum()` of floats up to 3.11: left to right, no compensation. (From 3.12 `sum`
 * compensates, and its result can differ in the last bit; the reference fixture records the
 * Python it was made with.)
 */
export function sumInOrder(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
