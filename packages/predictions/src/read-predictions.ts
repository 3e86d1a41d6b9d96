import { readAgentlessPredictions } from "./agentless-predictions.js";
import { readBlagentPredictions } from "./blagent-predictions.js";
import { readLoclabPredictions } from "./loclab-predictions.js";
import { readLocAgentPredictions } from "./locagent-predictions.js";
import { readSherlocPredictions } from "./sherloc-predictions.js";
import {
  PREDICTION_FORMATS,
  type PredictionFormat,
  type ReadPredictionsOptions,
  type ReadPredictionsResult,
} from "./read-types.js";

export interface ReadAnyPredictionsOptions extends ReadPredictionsOptions {
  /** The file's format; not guessed from the content, since the formats overlap (`found_files`). */
  format: PredictionFormat;
}

/**
 * Reads a localizer's output file in the given format into `Prediction`s, with a report of
 * what was normalized, de-duplicated, skipped or unexpected (see `ReadReport`).
 *
 * @example const { predictions, report } = await readPredictions(file, { format: "agentless", instanceIds, repoOf });
 */
export function readPredictions(file: string, options: ReadAnyPredictionsOptions): Promise<ReadPredictionsResult> {
  const { format, ...rest } = options;
  switch (format) {
    case "locagent":
      return readLocAgentPredictions(file, rest);
    case "agentless":
      return readAgentlessPredictions(file, rest);
    case "blagent":
      return readBlagentPredictions(file, rest);
    case "loclab":
      return readLoclabPredictions(file, rest);
    case "sherloc":
      return readSherlocPredictions(file, rest);
    default:
      return Promise.reject(
        new Error(
          `unknown predictions format ${JSON.stringify(format)}: expected one of ${PREDICTION_FORMATS.join(", ")}`,
        ),
      );
  }
}
