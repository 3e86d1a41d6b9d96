import { sumInOrder } from "./sherloc-chunks.js";
import { SHERLOC_SKIPPED, SHERLOC_SUCCESS, type SherlocInstanceScores } from "./sherloc-instance.js";

/** The file-level and chunk-level averages SHERLOC reports, in percent, under its key names. */
export const SHERLOC_AVERAGED = [
  "file_precision",
  "file_recall",
  "file_f1",
  "file_exact_match",
  "file_accuracy",
  "chunk_coverage_recall",
  "chunk_avg_tightness",
  "chunk_precision",
] as const;
export type SherlocAveraged = (typeof SHERLOC_AVERAGED)[number];

/** What SHERLOC's metrics class reports for a run of one generation per instance (`pass@1`). */
export interface SherlocAggregate extends Record<SherlocAveraged, number> {
  total_samples: number;
  samples_with_gt: number;
  samples_no_gt: number;
  successful_samples: number;
  failed_samples: number;
  skipped_samples: number;
  success_rate: number;
  total_gt_locs: number;
  total_pred_locs: number;
  avg_gt_per_case: number;
  avg_pred_per_case: number;
}

/** One scored entry of a generation file: its status and its block, in file order. */
export interface SherlocEntry {
  status?: string;
  scores: SherlocInstanceScores;
}

/**
 * SHERLOC's aggregation (NVIDIA-NeMo/Skills, `recipes/sherloc/metrics/sherloc.py` at
 * 1a19e2f, `SherlocMetrics.update` then `get_metrics`, one generation per instance, the
 * evaluator's `processing_stats` on the first entry), replayed over the entries in order:
 * - entries whose gold yields no location (`ground_truth_count` 0) are counted in
 *   `samples_no_gt` and left out of every average; failed and skipped entries keep their zeros;
 * - each average is the unweighted mean, over the remaining entries, of the per-entry value
 *   (the chunk tightness too: an entry with nothing contained adds its 0), times 100;
 * - the counts are the evaluator's `processing_stats`, over every entry: skipped, failed (any
 *   status but `success` and `skipped`), and successful, which counts the skipped entries a
 *   second time (the evaluator falls through after a skipped entry); `success_rate` =
 *   successful / (successful + failed + skipped).
 */
export function aggregateSherloc(entries: readonly SherlocEntry[]): SherlocAggregate {
  let successful = 0;
  let failed = 0;
  let skipped = 0;
  let noGold = 0;
  let goldLocations = 0;
  let predictedLocations = 0;
  const fileLevel: SherlocInstanceScores["file_level"][] = [];
  const chunkLevel: SherlocInstanceScores["chunk_containment"][] = [];
  for (const entry of entries) {
    const status = entry.status ?? SHERLOC_SUCCESS;
    if (status === SHERLOC_SKIPPED) {
      // SHERLOC's evaluator has no `continue` after a skipped entry: it is counted as skipped
      // and then, falling through, as successful too (its zero block stays the first).
      skipped += 1;
      successful += 1;
    } else if (status === SHERLOC_SUCCESS) successful += 1;
    else failed += 1;
    const block = entry.scores;
    if (block.ground_truth_count === 0) {
      noGold += 1;
      continue;
    }
    fileLevel.push(block.file_level);
    chunkLevel.push(block.chunk_containment);
    goldLocations += block.ground_truth_count;
    predictedLocations += block.predicted_count;
  }
  const total = entries.length;
  const effective = total - noGold;
  const counted = successful + failed + skipped;
  const successRate = counted > 0 ? (successful / counted) * 100 : effective > 0 ? 100 : 0;
  const mean = <T>(list: readonly T[], pick: (item: T) => number) =>
    list.length > 0 ? sumInOrder(list.map(pick)) / list.length : 0;
  return {
    total_samples: total,
    samples_with_gt: effective,
    samples_no_gt: noGold,
    successful_samples: successful,
    failed_samples: failed,
    skipped_samples: skipped,
    success_rate: successRate,
    total_gt_locs: goldLocations,
    total_pred_locs: predictedLocations,
    avg_gt_per_case: effective > 0 ? goldLocations / effective : 0,
    avg_pred_per_case: effective > 0 ? predictedLocations / effective : 0,
    file_precision: mean(fileLevel, (scores) => scores.precision) * 100,
    file_recall: mean(fileLevel, (scores) => scores.recall) * 100,
    file_f1: mean(fileLevel, (scores) => scores.f1) * 100,
    file_exact_match: mean(fileLevel, (scores) => scores.exact_match) * 100,
    file_accuracy: mean(fileLevel, (scores) => scores.accuracy) * 100,
    chunk_coverage_recall: mean(chunkLevel, (scores) => scores.coverage_recall) * 100,
    chunk_avg_tightness: mean(chunkLevel, (scores) => scores.avg_prediction_tightness) * 100,
    chunk_precision: mean(chunkLevel, (scores) => scores.precision) * 100,
  };
}
