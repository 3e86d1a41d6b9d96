import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { stampRecord } from "../artifact.js";
import { writeFileAtomic } from "../atomic-write.js";
import { appendJsonl } from "../jsonl-append.js";
import { cellLabel } from "../control.js";
import type { PredictionRecord } from "../prediction-record.js";
import { isFinalOutcome, type RunRecord } from "../run-record.js";
import { runLayout } from "./layout.js";

/** The cell a ledger record belongs to (`seed-1/plain`). */
export function recordCell(record: Pick<RunRecord, "seed" | "control" | "arm">): string {
  return cellLabel({
    seed: record.seed,
    control: record.control,
    ...(record.arm !== undefined ? { arm: record.arm } : {}),
  });
}

/**
 * The predictions of every cell, derived from the ledger (the truth): per cell, the prediction
 * of each key's final record, in ledger order; a key's later final records (never written by
 * the runner) are left out. Pure.
 */
export function cellPredictions(records: readonly RunRecord[]): Map<string, PredictionRecord[]> {
  const byCell = new Map<string, PredictionRecord[]>();
  const closed = new Set<string>();
  for (const record of records) {
    if (!isFinalOutcome(record.outcome) || closed.has(record.key)) continue;
    closed.add(record.key);
    if (!record.prediction) continue;
    const cell = recordCell(record);
    const list = byCell.get(cell) ?? [];
    list.push(stampRecord(record.prediction) as PredictionRecord);
    byCell.set(cell, list);
  }
  return byCell;
}

const lines = (records: readonly object[]) => records.map((record) => `${JSON.stringify(record)}\n`).join("");

/** What rebuilding one cell's predictions file changed. */
export interface RebuiltCell {
  cell: string;
  path: string;
  /** Predictions the file holds now. */
  predictions: number;
  /** Instances whose prediction the ledger has and the file did not (a kill between the two writes, or a hand edit). */
  missing: string[];
  /** Lines the file had that the ledger does not give (a hand edit, a torn line), counted. */
  dropped: number;
}

/**
 * Rewrites each cell's `predictions.jsonl` from the ledger's records (`cellPredictions`),
 * atomically, for the cells in `cells` (a cell without predictions gets an empty file) and any
 * other cell the ledger has; a file that already says what the ledger says is left as it is.
 * What a kill left between the ledger line and the predictions line is mended this way, and so
 * is a file damaged or deleted by hand. Returns what changed, per cell rewritten.
 */
export async function rebuildCellPredictions(
  dir: string,
  records: readonly RunRecord[],
  cells: readonly string[] = [],
): Promise<RebuiltCell[]> {
  const derived = cellPredictions(records);
  const rebuilt: RebuiltCell[] = [];
  for (const cell of new Set([...cells, ...derived.keys()])) {
    const path = runLayout.predictions(dir, cell);
    const predictions = derived.get(cell) ?? [];
    const text = lines(predictions);
    const before = existsSync(path) ? await readFile(path, "utf8") : undefined;
    if (before === text) continue;
    const had = new Set((before ?? "").split("\n").filter((line) => line.trim() !== ""));
    const want = new Set(text.split("\n").filter(Boolean));
    const missing = predictions
      .filter((prediction) => !had.has(JSON.stringify(prediction)))
      .map((prediction) => prediction.instanceId);
    const dropped = [...had].filter((line) => !want.has(line)).length;
    await writeFileAtomic(path, text);
    rebuilt.push({ cell, path, predictions: predictions.length, missing, dropped });
  }
  return rebuilt;
}

/**
 * The one place a run writes a prediction: after the attempt's ledger line, the final record's
 * prediction is appended to its cell's file (a record that is not final, or has none, writes
 * nothing). A kill between the two writes is mended by `rebuildCellPredictions` on resume.
 */
export async function appendCellPrediction(dir: string, record: RunRecord): Promise<void> {
  if (!isFinalOutcome(record.outcome) || !record.prediction) return;
  await appendJsonl(runLayout.predictions(dir, recordCell(record)), stampRecord(record.prediction));
}
