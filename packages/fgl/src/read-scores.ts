import { readFile } from "node:fs/promises";
import { repairTornTail } from "@loclab/schemas";
import { type ScoreRecord, ScoreRecordSchema } from "./score-record.js";

/**
 * Reads a scores file; a line that is not a score record is an error naming the file and line.
 * A half-written last line (a crash mid-write) is not an error: it is left out, and with
 * `repair` set aside to `<file>.torn-<time>` (as the runner does with its ledger) so that the
 * next append starts a line of its own and nothing written is lost.
 */
export async function readScores(path: string, options: { repair?: boolean } = {}): Promise<ScoreRecord[]> {
  if (options.repair) await repairTornTail(path);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const records: ScoreRecord[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    // A crash can leave the last line half-written: it is scored again, not an error.
    if (i === lines.length - 1 && !text.endsWith("\n")) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${path}:${i + 1}: not JSON`);
    }
    const parsed = ScoreRecordSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(
        `${path}:${i + 1}: not a score record: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`,
      );
    records.push(parsed.data);
  });
  return records;
}
