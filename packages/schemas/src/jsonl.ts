import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { z } from "zod";
import { formatZodError } from "./format-error.js";

/**
 * A line of a JSONL file that could not be read as a record: not JSON, or JSON that does not
 * match the expected schema. The message names the file, the 1-based line number and why,
 * in the `file:line: reason` form editors and terminals link to.
 */
export class JsonlLineError extends Error {
  override readonly name = "JsonlLineError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
  }
}

/**
 * What to do with a bad line.
 * - `stop` (default): throw a `JsonlLineError` at the first bad line; the records already
 *   yielded stay with the caller.
 * - `skip`: go on, and push each bad line into `skipped`, which the caller must provide, so
 *   that nothing is dropped silently; `readJsonl` returns them with the records.
 */
export type JsonlBadLinePolicy = { onBadLine?: "stop" } | { onBadLine: "skip"; skipped: JsonlLineError[] };

export type JsonlReadOptions<T> = JsonlBadLinePolicy & {
  /** Validates (and may transform) each record; without it, records are `unknown` JSON. */
  schema?: z.ZodType<T, unknown>;
};

/** A record with the line it came from, for error messages further down the pipeline. */
export interface JsonlRecord<T> {
  line: number;
  value: T;
}

/**
 * Streams the records of a JSONL file one line at a time (memory stays flat for large
 * trajectory dumps). Blank lines are not records and are passed over; a UTF-8 byte-order
 * mark on the first line is ignored; `\r\n` line ends are accepted.
 *
 * @example
 * for await (const { line, value } of streamJsonl("lite.jsonl", { schema: InstanceSchema })) { … }
 */
export async function* streamJsonl<T = unknown>(
  file: string,
  options: JsonlReadOptions<T> = {},
): AsyncGenerator<JsonlRecord<T>> {
  const input = createReadStream(file, { encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const raw of lines) {
      lineNumber += 1;
      const text = lineNumber === 1 ? raw.replace(/^\uFEFF/, "") : raw;
      if (text.trim() === "") continue;
      const parsed = parseLine(file, lineNumber, text, options.schema);
      if (parsed instanceof JsonlLineError) {
        if (options.onBadLine === "skip") {
          options.skipped.push(parsed);
          continue;
        }
        throw parsed;
      }
      yield { line: lineNumber, value: parsed.value };
    }
  } catch (error) {
    if (error instanceof JsonlLineError) throw error;
    // Opening or reading the file failed: keep the OS reason, and say which file.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot read JSONL file ${file}: ${reason}`, { cause: error });
  } finally {
    lines.close();
    input.destroy();
  }
}

function parseLine<T>(
  file: string,
  line: number,
  text: string,
  schema: z.ZodType<T, unknown> | undefined,
): { value: T } | JsonlLineError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return new JsonlLineError(file, line, `invalid JSON: ${reason}`);
  }
  if (!schema) return { value: json as T };
  const result = schema.safeParse(json);
  if (result.success) return { value: result.data };
  const id = recordId(json);
  return new JsonlLineError(file, line, `${id ? `${id}: ` : ""}${formatZodError(result.error)}`);
}

/** The record's own id, when it has one, so a schema error also names the instance. */
function recordId(json: unknown): string | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const record = json as Record<string, unknown>;
  for (const key of ["instance_id", "instanceId", "id"]) {
    const value = record[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** Everything `readJsonl` read: the records, the bad lines skipped (if skipping), and counts. */
export interface JsonlReadResult<T> {
  file: string;
  records: JsonlRecord<T>[];
  skipped: JsonlLineError[];
}

/**
 * Reads a whole JSONL file into memory. With `{ onBadLine: "skip" }` the bad lines come back
 * in `skipped` (the caller need not supply an array); otherwise the first bad line throws.
 */
export async function readJsonl<T = unknown>(
  file: string,
  options: { schema?: z.ZodType<T, unknown>; onBadLine?: "stop" | "skip" } = {},
): Promise<JsonlReadResult<T>> {
  const skipped: JsonlLineError[] = [];
  const policy: JsonlReadOptions<T> =
    options.onBadLine === "skip"
      ? { onBadLine: "skip", skipped, ...(options.schema ? { schema: options.schema } : {}) }
      : { ...(options.schema ? { schema: options.schema } : {}) };
  const records: JsonlRecord<T>[] = [];
  for await (const record of streamJsonl(file, policy)) records.push(record);
  return { file, records, skipped };
}
