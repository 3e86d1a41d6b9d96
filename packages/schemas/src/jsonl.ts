import { createReadStream } from "node:fs";
import type { z } from "zod";
import { formatZodError } from "./format-error.js";
import { decodeUtf8 } from "./utf8.js";

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
  /**
   * Told of a torn last line: the file does not end with a line break and its last line is
   * not a record (a write cut off by a crash). Such a line is never a record and never stops
   * the read, under either policy; without this callback it is still reported, on stderr.
   */
  onTornLine?: (error: JsonlLineError) => void;
};

/** A record with the line it came from, for error messages further down the pipeline. */
export interface JsonlRecord<T> {
  line: number;
  value: T;
}

/** The lines of a file as bytes, with whether the last one ended with a line break. */
async function* byteLines(file: string): AsyncGenerator<{ bytes: Buffer; last: boolean; terminated: boolean }> {
  let pending: Buffer = Buffer.alloc(0);
  let held: Buffer | undefined;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let start = 0;
    for (let newline = pending.indexOf(0x0a); newline !== -1; newline = pending.indexOf(0x0a, start)) {
      if (held) yield { bytes: held, last: false, terminated: true };
      held = pending.subarray(start, newline);
      start = newline + 1;
    }
    pending = pending.subarray(start);
  }
  if (pending.length > 0) {
    if (held) yield { bytes: held, last: false, terminated: true };
    yield { bytes: pending, last: true, terminated: false };
  } else if (held) yield { bytes: held, last: true, terminated: true };
}

/**
 * Streams the records of a JSONL file one line at a time (memory stays flat for large
 * trajectory dumps). Blank lines are not records and are passed over; a UTF-8 byte-order
 * mark on the first line is ignored; `\r\n` line ends are accepted. A line that is not valid
 * UTF-8 is a bad line naming the byte offset (never replaced silently). A torn last line
 * (no final line break, not a record: a crash mid-write) is reported through `onTornLine`
 * and passed over, so a killed run's file still reads.
 *
 * @example
 * for await (const { line, value } of streamJsonl("lite.jsonl", { schema: InstanceSchema })) { … }
 */
export async function* streamJsonl<T = unknown>(
  file: string,
  options: JsonlReadOptions<T> = {},
): AsyncGenerator<JsonlRecord<T>> {
  let lineNumber = 0;
  try {
    for await (const { bytes, last, terminated } of byteLines(file)) {
      lineNumber += 1;
      const decoded = decodeUtf8(bytes);
      let parsed: { value: T } | JsonlLineError;
      if ("invalidAt" in decoded) {
        parsed = new JsonlLineError(file, lineNumber, `not valid UTF-8 (at byte ${decoded.invalidAt} of the line)`);
      } else {
        const text = (lineNumber === 1 ? decoded.text.replace(/^\uFEFF/, "") : decoded.text).replace(/\r$/, "");
        if (text.trim() === "") continue;
        parsed = parseLine(file, lineNumber, text, options.schema);
      }
      if (parsed instanceof JsonlLineError) {
        if (last && !terminated) {
          const torn = new JsonlLineError(
            file,
            lineNumber,
            `a torn last line (no line break, ${bytes.length} bytes; a write cut off?): passed over: ${parsed.reason}`,
          );
          if (options.onTornLine) options.onTornLine(torn);
          else process.stderr.write(`loclab: warning: ${torn.message}\n`);
          continue;
        }
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
  let result;
  try {
    result = schema.safeParse(json);
  } catch (error) {
    // A value nested deeper than the validator can recurse (a RangeError): a bad line, not a crash.
    return new JsonlLineError(
      file,
      line,
      `cannot be checked: ${error instanceof Error ? error.message : String(error)} (nested too deeply?)`,
    );
  }
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
  options: {
    schema?: z.ZodType<T, unknown>;
    onBadLine?: "stop" | "skip";
    onTornLine?: (error: JsonlLineError) => void;
  } = {},
): Promise<JsonlReadResult<T>> {
  const skipped: JsonlLineError[] = [];
  const common = {
    ...(options.schema ? { schema: options.schema } : {}),
    ...(options.onTornLine ? { onTornLine: options.onTornLine } : {}),
  };
  const policy: JsonlReadOptions<T> = options.onBadLine === "skip" ? { onBadLine: "skip", skipped, ...common } : common;
  const records: JsonlRecord<T>[] = [];
  for await (const record of streamJsonl(file, policy)) records.push(record);
  return { file, records, skipped };
}
