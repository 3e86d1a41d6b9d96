import {
  type SherlocChunkOptions,
  type SherlocChunkScores,
  emptyChunkScores,
  sherlocChunkScores,
} from "./sherloc-chunks.js";
import { type SherlocFileScores, sherlocFileScores } from "./sherloc-file-level.js";
import type { SherlocLocation } from "./sherloc-location.js";

/** SHERLOC's generation statuses: only `success` is scored; `skipped` and anything else score 0. */
export const SHERLOC_SUCCESS = "success";
export const SHERLOC_SKIPPED = "skipped";

/** The per-generation block SHERLOC's evaluator writes (`eval_status[0]`), the fields its metrics read. */
export interface SherlocInstanceScores {
  file_level: SherlocFileScores;
  chunk_containment: SherlocChunkScores;
  ground_truth_count: number;
  predicted_count: number;
  is_failed_sample?: true;
  is_skipped_sample?: true;
}

export interface SherlocGeneration {
  /** The generation's status; absent means `success` (a loclab prediction that exists). */
  status?: string;
  locations: readonly SherlocLocation[];
}

/**
 * One generation scored as SHERLOC's evaluator does (`eval_metrics`, `_execute_single_test`):
 * a `success` is compared with the gold; a `skipped` or any other status gets an all-zero
 * block that still counts the gold chunks, so it weighs in the averages as a miss.
 */
export function sherlocInstanceScores(
  gold: readonly SherlocLocation[],
  generation: SherlocGeneration,
  options: SherlocChunkOptions = {},
): SherlocInstanceScores {
  const status = generation.status ?? SHERLOC_SUCCESS;
  if (status !== SHERLOC_SUCCESS) {
    return {
      file_level: { precision: 0, recall: 0, f1: 0, exact_match: 0, accuracy: 0 },
      chunk_containment: emptyChunkScores(gold.length, 0),
      ground_truth_count: gold.length,
      predicted_count: 0,
      ...(status === SHERLOC_SKIPPED ? { is_skipped_sample: true as const } : { is_failed_sample: true as const }),
    };
  }
  return {
    file_level: sherlocFileScores(gold, generation.locations),
    chunk_containment: sherlocChunkScores(gold, generation.locations, options),
    ground_truth_count: gold.length,
    predicted_count: generation.locations.length,
  };
}
