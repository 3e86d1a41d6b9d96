import { existsSync } from "node:fs";
import { type JsonlLineError, readJsonl } from "../jsonl.js";
import { isFinalOutcome, type RunRecord, RunRecordSchema } from "../run-record.js";
import type { z } from "zod";
import { repairTornTail, type TornTail } from "../jsonl-tail.js";

/** What reading a run's own JSONL file found besides its records. */
export interface OwnFileReport {
  torn?: TornTail;
  skipped: JsonlLineError[];
}

/**
 * The records of a JSONL file the run appends to: a torn last line (a kill mid-write) is set
 * aside first (`repairTornTail`, reported), then each line is checked against `schema`; a
 * line that does not fit is reported with file and line and skipped (its attempt runs again).
 */
export async function readOwnJsonl<T>(
  path: string,
  schema: z.ZodType<T, unknown>,
  options: { repair: boolean },
): Promise<{ records: T[] } & OwnFileReport> {
  if (!existsSync(path)) return { records: [], skipped: [] };
  const torn = options.repair ? await repairTornTail(path) : undefined;
  const tornLines: JsonlLineError[] = [];
  const { records, skipped } = await readJsonl(path, {
    schema,
    onBadLine: "skip",
    onTornLine: (line) => tornLines.push(line),
  });
  return {
    records: records.map((record) => record.value),
    skipped: [...skipped, ...tornLines],
    ...(torn ? { torn } : {}),
  };
}

/** One attempt key's history in the ledger. */
export interface KeyHistory {
  records: RunRecord[];
  /** The record that closed the key (the first with a final outcome). */
  final?: RunRecord;
  /** More than one final record: never written by the runner; reported by `loclab status`. */
  duplicateFinals: number;
}

/** The ledger's records by attempt key, in file order. Pure. */
export function keyHistories(records: readonly RunRecord[]): Map<string, KeyHistory> {
  const byKey = new Map<string, KeyHistory>();
  for (const record of records) {
    let history = byKey.get(record.key);
    if (!history) byKey.set(record.key, (history = { records: [], duplicateFinals: 0 }));
    history.records.push(record);
    if (isFinalOutcome(record.outcome)) {
      if (history.final) history.duplicateFinals += 1;
      else history.final = record;
    }
  }
  return byKey;
}

/** Reads `attempts.jsonl`. */
export function readLedger(
  path: string,
  options: { repair: boolean },
): Promise<{ records: RunRecord[] } & OwnFileReport> {
  return readOwnJsonl(path, RunRecordSchema, options);
}
