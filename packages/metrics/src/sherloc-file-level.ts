import type { SherlocLocation } from "./sherloc-location.js";

/** SHERLOC's file-level scores of one generation, each in [0, 1] (its key names). */
export interface SherlocFileScores {
  precision: number;
  /** |G ∩ P| / |G| over every predicted file: SHERLOC's Recall@1 (Verified) and Accuracy@1 (Lite). */
  recall: number;
  f1: number;
  exact_match: number;
  /** The Jaccard index |G ∩ P| / |G ∪ P|, not the paper's Accuracy@1. */
  accuracy: number;
}

/**
 * SHERLOC's `evaluate_file_level_accuracy` (NVIDIA-NeMo/Skills, `recipes/sherloc/evaluation/
 * sherloc.py`): the gold and predicted location lists collapsed to their distinct files and
 * compared as sets; the order and number of predicted files do not matter. Nothing on both
 * sides scores 1 everywhere; nothing on one side scores 0 everywhere.
 *
 * @example sherlocFileScores([{ file_path: "a.py", start_line: 3, end_line: 3 }], [{ file_path: "a.py" }, { file_path: "b.py" }])
 * // { precision: 0.5, recall: 1, f1: 2/3, exact_match: 0, accuracy: 0.5 }
 */
export function sherlocFileScores(
  gold: readonly SherlocLocation[],
  predicted: readonly SherlocLocation[],
): SherlocFileScores {
  if (gold.length === 0 && predicted.length === 0)
    return { precision: 1, recall: 1, f1: 1, exact_match: 1, accuracy: 1 };
  if (gold.length === 0 || predicted.length === 0)
    return { precision: 0, recall: 0, f1: 0, exact_match: 0, accuracy: 0 };
  const goldFiles = filesOf(gold);
  const predictedFiles = filesOf(predicted);
  let truePositives = 0;
  for (const file of predictedFiles) if (goldFiles.has(file)) truePositives += 1;
  const falsePositives = predictedFiles.size - truePositives;
  const falseNegatives = goldFiles.size - truePositives;
  const precision = truePositives + falsePositives > 0 ? truePositives / (truePositives + falsePositives) : 0;
  const recall = truePositives + falseNegatives > 0 ? truePositives / (truePositives + falseNegatives) : 0;
  const f1 = precision + recall > 0 ? (2 * (precision * recall)) / (precision + recall) : 0;
  const exactMatch = truePositives === goldFiles.size && truePositives === predictedFiles.size ? 1 : 0;
  const union = goldFiles.size + predictedFiles.size - truePositives;
  return { precision, recall, f1, exact_match: exactMatch, accuracy: union === 0 ? 1 : truePositives / union };
}

function filesOf(locations: readonly SherlocLocation[]): Set<string> {
  const files = new Set<string>();
  for (const location of locations) if (location.file_path !== undefined) files.add(location.file_path);
  return files;
}
