import * as aq from "arquero";

/** Significant digits of every non-integer number written to a CSV by loclab. */
export const CSV_SIGNIFICANT_DIGITS = 6;

/** A number as a CSV shows it: integers as they are, other numbers to 6 significant digits (5.95, not 5.949999999999999; 1.49012e-8). */
export function csvNumber(value: number): number {
  return Number.isInteger(value) || !Number.isFinite(value) ? value : Number(value.toPrecision(CSV_SIGNIFICANT_DIGITS));
}

/**
 * Rows (or an arquero table) as CSV, with every non-integer number rounded to
 * `CSV_SIGNIFICANT_DIGITS` significant digits (stated in results/README.md), so that a CSV
 * shows what was computed, not the last bits of binary floating point. The JSON artifacts keep
 * full precision.
 */
export function toCsv(rows: readonly object[] | aq.ColumnTable): string {
  const objects = Array.isArray(rows) ? rows : (rows as aq.ColumnTable).objects();
  const rounded = objects.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [key, typeof value === "number" ? csvNumber(value) : value]),
    ),
  );
  if (rounded.length === 0 && !Array.isArray(rows)) return (rows as aq.ColumnTable).toCSV();
  return aq.from(rounded).toCSV();
}
