import * as aq from "arquero";

/**
 * Prints rows as an aligned text table (arquero's Markdown formatter), for the human-readable
 * form of a command's output. Every row is printed unless `limit` says otherwise, and then the
 * rest are counted (arquero's own default of 100 rows would drop them silently). A cell that is
 * `undefined` or `null` prints empty and a `NaN` as `n/a`, never as the words.
 */
export function printTable(rows: object[], options: { limit?: number } = {}): void {
  const limit = options.limit ?? rows.length;
  if (rows.length === 0) {
    process.stdout.write("(no rows)\n");
    return;
  }
  const shown = rows
    .slice(0, limit)
    .map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, cellText(value)])));
  // Every row's columns, in first-seen order: a column missing from the first row is still printed.
  const columns = [...new Set(shown.flatMap((row) => Object.keys(row)))];
  const table = aq.table(Object.fromEntries(columns.map((column) => [column, shown.map((row) => row[column] ?? "")])));
  process.stdout.write(`${table.toMarkdown({ limit: shown.length })}\n`);
  if (rows.length > limit) process.stdout.write(`… ${rows.length - limit} more rows (not shown)\n`);
}

/** A value as a table cell. */
export function cellText(value: unknown): unknown {
  if (value === undefined || value === null) return "";
  if (typeof value === "number" && Number.isNaN(value)) return "n/a";
  return value;
}

/** One way of writing a number to a fixed number of digits (`n/a` when it is not finite), shared with the reproduce stages. */
export { fixed } from "@loclab/statistics";
