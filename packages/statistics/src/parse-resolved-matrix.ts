import { parse } from "csv-parse/sync";
/** A resolved matrix: which systems solved which instances. */
export interface ResolvedMatrix {
  /** Instance ids in file order. */
  instanceIds: string[];
  /** System (column) names in file order. */
  systems: string[];
  /** One array per system, aligned with instanceIds: 1 = resolved, 0 = not. */
  outcomes: Uint8Array[];
}

/** A malformed resolved matrix: where (source, 1-based line, column name) and what. */
export class ResolvedMatrixError extends Error {
  override name = "ResolvedMatrixError";
  constructor(
    readonly source: string,
    readonly line: number,
    readonly column: string | undefined,
    readonly problem: string,
  ) {
    super(`${source}: line ${line}${column === undefined ? "" : `, column ${JSON.stringify(column)}`}: ${problem}`);
  }
}

interface CsvRecord {
  fields: string[];
  line: number;
}

/** What csv-parse's errors mean here, in this module's words (the line comes from csv-parse). */
function csvProblem(error: { code?: string; message: string }): string {
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return "a quoted field is never closed";
    case "INVALID_OPENING_QUOTE":
      return "a double quote inside an unquoted field";
    case "CSV_INVALID_CLOSING_QUOTE": {
      const got = /got "(.*)" at line/.exec(error.message)?.[1];
      return got === undefined
        ? "unexpected text after a closing quote"
        : `unexpected ${JSON.stringify(got)} after a closing quote`;
    }
    default:
      return error.message;
  }
}

/**
 * RFC 4180 records by csv-parse: fields split on commas, double-quoted fields may hold commas,
 * quotes ("") and line breaks; records end at LF or CRLF (a bare CR inside a record is an
 * error: it would be a line break to some readers and not to others). `line` is the 1-based
 * line where a record starts. A leading byte-order mark and trailing blank lines are dropped.
 */
function readRecords(text: string, source: string): CsvRecord[] {
  let parsed: { record: string[]; info: { lines: number }; raw: string }[];
  try {
    // With `info` and `raw`, csv-parse returns records wrapped with their line info and raw text (its types do not say so).
    parsed = parse(text, {
      bom: true,
      info: true,
      raw: true,
      relax_column_count: true,
      record_delimiter: ["\r\n", "\n"],
      skip_empty_lines: false,
    }) as unknown as typeof parsed;
  } catch (error) {
    const csvError = error as { code?: string; lines?: number; message: string };
    throw new ResolvedMatrixError(source, csvError.lines ?? 1, undefined, csvProblem(csvError));
  }
  const records = parsed.map(({ record, info, raw }) => {
    const inner = raw.replace(/\r?\n$|\r$/, "");
    // csv-parse counts a line at the record's end; line breaks inside it (LF, CRLF, a bare CR) move the start back.
    const line = info.lines - (inner.match(/\r\n|\r|\n/g)?.length ?? 0);
    if (record.some((field) => field.includes("\r")))
      throw new ResolvedMatrixError(source, line, undefined, "a carriage return that does not end a line");
    return { fields: record, line };
  });
  // Blank lines at the very end are padding, not rows.
  while (records.length > 0) {
    const last = records[records.length - 1] as CsvRecord;
    if (last.fields.length === 1 && last.fields[0] === "") records.pop();
    else break;
  }
  return records;
}

/**
 * Parses a resolved matrix — CSV with a header `instance_id,<system 1>,<system 2>,…` and one
 * row per instance of 0/1 cells (1 = the system resolved the instance), like the files in
 * /work/shared/data/resolved/ (CRLF line ends, unquoted names with spaces and parentheses;
 * RFC 4180 quoting is accepted too). Pure: text in; the CLI reads the file.
 *
 * Strict: a cell other than exactly "0" or "1", a row with more or fewer fields than the
 * header, an empty or duplicate instance id, an empty or duplicate system name, a first column
 * not named instance_id, no system columns, or malformed quoting throws a ResolvedMatrixError
 * naming `source`, the 1-based line and the column. Nothing is returned from a partly read
 * file. A leading byte-order mark and trailing blank lines are ignored; a file with a header
 * and no rows gives empty instanceIds.
 *
 * Cost: O(characters); ~1 ms for 300 × 42.
 *
 * @example parseResolvedMatrix("instance_id,sysA,sysB\r\ndjango__django-11099,1,0\r\n", { source: "lite.csv" })
 *          // { instanceIds: ["django__django-11099"], systems: ["sysA", "sysB"], outcomes: [Uint8Array [1], Uint8Array [0]] }
 */
export function parseResolvedMatrix(csvText: string, options: { source: string }): ResolvedMatrix {
  const { source } = options;
  const records = readRecords(csvText, source);
  const header = records[0];
  if (!header) throw new ResolvedMatrixError(source, 1, undefined, "no header: the text is empty");
  const names = header.fields;
  if (names[0] !== "instance_id")
    throw new ResolvedMatrixError(source, header.line, names[0], 'the first column must be named "instance_id"');
  const seenNames = new Map<string, number>();
  names.forEach((name, index) => {
    if (name === "") throw new ResolvedMatrixError(source, header.line, "", `column ${index + 1} has an empty name`);
    const earlier = seenNames.get(name);
    if (earlier !== undefined)
      throw new ResolvedMatrixError(
        source,
        header.line,
        name,
        `duplicate column name (columns ${earlier + 1} and ${index + 1})`,
      );
    seenNames.set(name, index);
  });
  const systems = names.slice(1);
  if (systems.length === 0)
    throw new ResolvedMatrixError(source, header.line, undefined, "no system columns after instance_id");
  const rows = records.slice(1);
  const instanceIds: string[] = [];
  const idLines = new Map<string, number>();
  const outcomes = systems.map(() => new Uint8Array(rows.length));
  rows.forEach((record, r) => {
    const { fields, line } = record;
    if (fields.length !== names.length) {
      throw new ResolvedMatrixError(
        source,
        line,
        undefined,
        `expected ${names.length} fields like the header, got ${fields.length}`,
      );
    }
    const id = fields[0] as string;
    if (id === "") throw new ResolvedMatrixError(source, line, "instance_id", "empty instance id");
    const earlier = idLines.get(id);
    if (earlier !== undefined)
      throw new ResolvedMatrixError(
        source,
        line,
        "instance_id",
        `duplicate instance id ${JSON.stringify(id)} (first on line ${earlier})`,
      );
    idLines.set(id, line);
    instanceIds.push(id);
    for (let s = 0; s < systems.length; s += 1) {
      const cell = fields[s + 1] as string;
      if (cell === "1") (outcomes[s] as Uint8Array)[r] = 1;
      else if (cell !== "0")
        throw new ResolvedMatrixError(source, line, systems[s], `expected 0 or 1, got ${JSON.stringify(cell)}`);
    }
  });
  return { instanceIds, systems, outcomes };
}
