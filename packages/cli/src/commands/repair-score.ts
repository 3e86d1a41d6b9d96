import { formatCounts } from "../format-counts.js";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { printBreakdown } from "../breakdown-print.js";

/**
 * A repair run's score (`loclab run score DIR`, which writes its results) or breakdown
 * (`loclab breakdown DIR`, which writes nothing): per cell the keys, the verdicts and the
 * fixer's exits, then FGL's Table 4 (one row per cell; each against the first cell with the
 * exact McNemar test) and the pairwise overlap.
 */
export async function printRepairScore(
  dir: string,
  options: { json: boolean; write: boolean; base?: string },
): Promise<void> {
  const { repairBreakdown, writeRepairReport, cellScores } = await import("@loclab/repair");
  const base = options.base !== undefined ? { base: options.base } : {};
  const report = options.write
    ? await writeRepairReport(dir, base)
    : await repairBreakdown(dir, base).then((breakdown) => ({ breakdown, cells: cellScores(breakdown), written: [] }));
  for (const problem of report.breakdown.problems) progress(problem);
  if (options.json) {
    const { breakdown, cells } = report;
    process.stdout.write(
      `${JSON.stringify({ cells, open: breakdown.open, breakdown: breakdown.breakdown, problems: breakdown.problems, overLimit: breakdown.overLimit })}\n`,
    );
    return;
  }
  const write = (line = "") => process.stdout.write(`${line}\n`);
  write("verdicts per cell (the evaluation of each key's final patch; the fixer's exits):");
  printTable(
    report.cells.map((cell) => ({
      cell: cell.cell,
      keys: cell.keys,
      done: cell.done,
      resolved: cell.resolved,
      rate: cell.rate === null ? "" : `${(cell.rate * 100).toFixed(1)} %`,
      evaluation: formatCounts(cell.evaluation),
      exits: formatCounts(cell.exits),
    })),
  );
  if (report.breakdown.open.length > 0)
    write(`${report.breakdown.open.length} key(s) without a final outcome yet count as no patch below`);
  write();
  write(
    `failure breakdown (FGL's Table 4; each cell against ${report.breakdown.breakdown.base ?? "the first"}, exact McNemar):`,
  );
  printBreakdown(report.breakdown.breakdown);
  for (const [cell, ids] of Object.entries(report.breakdown.overLimit))
    write(
      `${cell}: ${ids.length} of its wrong patches met a limit (patch-too-large, log-over-limit): ${ids.join(", ")}`,
    );
  if (report.written.length > 0) {
    write();
    write(`written under ${dir}: ${report.written.join(", ")}`);
  }
}
