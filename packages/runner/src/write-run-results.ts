import { join } from "node:path";
import { type Prediction, type RunScoreFile, runLayout, writeFileAtomic, writeRunScore } from "@loclab/schemas";
import { toCsv } from "./csv.js";

/** One cell's predictions for the export in LocAgent's `loc_outputs` form. */
export interface CellExport {
  cell: string;
  model: string | undefined;
  predictions: readonly Prediction[];
}

/**
 * Writes a run's results under its folder: results/cells.csv, per-instance.csv,
 * across-seeds.csv, comparisons.csv and score.json (`writeRunScore`), and per cell
 * export/<seed>-<control>.jsonl in LocAgent's `loc_outputs` form (`instance_id`, `found_files`,
 * `found_modules`, `found_entities`, and `found_spans`) for the next tool. Returns the files
 * written, relative to the run folder.
 */
export async function writeRunResults(
  dir: string,
  score: Omit<RunScoreFile, "kind" | "schemaVersion">,
  exports: readonly CellExport[],
): Promise<string[]> {
  const written: string[] = [];
  const results = runLayout.results(dir);
  const put = async (name: string, text: string) => {
    await writeFileAtomic(join(results, name), text);
    written.push(`results/${name}`);
  };
  const { cells, instanceIds } = score;
  await put(
    "cells.csv",
    toCsv(
      cells.map((cell) => ({
        cell: cell.cell,
        seed: cell.seed ?? "",
        control: cell.control,
        n: cell.n,
        missing_predictions: cell.missingPredictions,
        ...cell.metrics,
      })),
    ),
  );
  const perInstance = cells.flatMap((cell) =>
    instanceIds.map((id, i) => ({
      cell: cell.cell,
      seed: cell.seed ?? "",
      control: cell.control,
      instance_id: id,
      ...Object.fromEntries(Object.entries(cell.perInstance).map(([key, values]) => [key, values[i]])),
    })),
  );
  await put("per-instance.csv", toCsv(perInstance));
  await put(
    "across-seeds.csv",
    toCsv(score.acrossSeeds.map(({ values, ...row }) => ({ ...row, sd: row.sd ?? "", values: values.join(" ") }))),
  );
  await put("comparisons.csv", toCsv(score.comparisons.map((row) => ({ ...row, seed: row.seed ?? "" }))));
  await writeRunScore(dir, score);
  written.push("results/score.json");
  const exportDir = runLayout.export(dir);
  for (const { cell, model, predictions } of exports) {
    const name = `${cell.replace("/", "-")}.jsonl`;
    const rows = predictions.map((prediction) => ({
      instance_id: prediction.instanceId,
      model_name_or_path: model,
      found_files: prediction.files,
      found_modules: prediction.modules ?? [],
      found_entities: prediction.functions ?? [],
      found_spans: prediction.locations.map(({ path, startLine, endLine }) => ({ path, startLine, endLine })),
    }));
    await writeFileAtomic(join(exportDir, name), rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
    written.push(`export/${name}`);
  }
  return written;
}
