import * as aq from "arquero";

/**
 * Prints rows as an aligned text table (arquero's formatter), for the human-readable form
 * of a command's output. `limit` rows at most; the rest are counted, not hidden silently.
 */
export function printTable(rows: object[], options: { limit?: number } = {}): void {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (rows.length === 0) {
    process.stdout.write("(no rows)\n");
    return;
  }
  const table = aq.from(rows.slice(0, limit));
  process.stdout.write(`${table.toMarkdown()}\n`);
  if (rows.length > limit) process.stdout.write(`… ${rows.length - limit} more rows\n`);
}
