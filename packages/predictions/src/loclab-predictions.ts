import { PredictionRecordSchema } from "@loclab/schemas";
import { collectPredictions } from "./collect-predictions.js";
import type { ReadPredictionsOptions, ReadPredictionsResult } from "./read-types.js";

/**
 * Reads loclab's own predictions JSONL (what loclab's localizers write). `schemaVersion` is
 * required on every line: artifacts written by loclab carry it (docs/architecture.md), and a
 * reader that guessed the version of an unstamped line could misread a later shape. Each line
 * is validated by `PredictionSchema` (so a span with start > end or a non-positive line names
 * file, line and instance), then normalized and de-duplicated like the peers' formats.
 *
 * @example const { predictions } = await readLoclabPredictions("results/run-1/predictions.jsonl", { instanceIds });
 */
export function readLoclabPredictions(
  file: string,
  options: ReadPredictionsOptions = {},
): Promise<ReadPredictionsResult> {
  return collectPredictions(
    {
      file,
      format: "loclab",
      schema: PredictionRecordSchema,
      toRaw: ({ schemaVersion: _version, ...prediction }) => prediction,
    },
    options,
  );
}
