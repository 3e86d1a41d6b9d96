import type { SiteCell, SiteColumn, SiteValue } from "./site-types.js";

/** An empty column-major table of `columns`, with the trajectory column `t`. */
export function emptyRows(columns: readonly SiteColumn[]): Record<string, SiteValue[]> {
  return Object.fromEntries([...columns.map((column) => [column.name, [] as SiteValue[]]), ["t", []]]);
}

/**
 * Appends one row to a column-major table: a value (null for none) for every column, `t`
 * included. A column left out would shift against the others, so it is an error.
 */
export function appendRow(rows: Record<string, SiteValue[]>, values: Readonly<Record<string, SiteValue>>): void {
  const columns = Object.entries(rows);
  for (const [name, column] of columns)
    if (values[name] === undefined) throw new Error(`row ${column.length}: no value for column ${name}`);
  for (const [name, column] of columns) column.push(values[name]!);
}

export interface TableCellsOptions {
  /** Columns whose mean over the cell's rows becomes a metric of the cell (rows without a number left out). */
  averaged: readonly string[];
  /** How a row ended, counted per cell. */
  outcomeOf: (row: number) => string;
  /** Whether an outcome counts toward the cell's `n` (default: every one). */
  counts?: (outcome: string) => boolean;
  /** The cell's parts, from its first row. */
  partsOf: (cell: string, row: number) => Pick<SiteCell, "seed" | "control" | "arm" | "model">;
  /** Metrics the cell already has (a run's own scores), to which the means are added. */
  metricsOf?: (cell: string) => Record<string, number | null> | undefined;
}

/**
 * The cells of a table (its `cell` column), in one pass over the rows: each cell's parts, how
 * its rows ended, and the means of the `averaged` columns. Pure; sorted by cell.
 */
export function tableCells(rows: Record<string, SiteValue[]>, options: TableCellsOptions): SiteCell[] {
  const { averaged } = options;
  const byCell = new Map<string, { cell: SiteCell; sums: number[]; counts: number[] }>();
  rows.cell!.forEach((value, row) => {
    const name = String(value);
    let entry = byCell.get(name);
    if (!entry) {
      entry = {
        cell: { cell: name, ...options.partsOf(name, row), n: 0, metrics: {}, outcomes: {} },
        sums: averaged.map(() => 0),
        counts: averaged.map(() => 0),
      };
      byCell.set(name, entry);
    }
    const outcome = options.outcomeOf(row);
    entry.cell.outcomes[outcome] = (entry.cell.outcomes[outcome] ?? 0) + 1;
    if (options.counts?.(outcome) ?? true) entry.cell.n++;
    averaged.forEach((column, k) => {
      const x = rows[column]![row];
      if (typeof x === "number") {
        entry.sums[k]! += x;
        entry.counts[k]!++;
      }
    });
  });
  for (const { cell, sums, counts } of byCell.values()) {
    cell.metrics = { ...options.metricsOf?.(cell.cell) };
    averaged.forEach((column, k) => {
      cell.metrics[column] = counts[k]! > 0 ? sums[k]! / counts[k]! : null;
    });
  }
  return [...byCell.values()].map((entry) => entry.cell).sort((a, b) => a.cell.localeCompare(b.cell));
}
