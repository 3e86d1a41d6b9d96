import { readFile } from "node:fs/promises";
import { compareSystems, parseResolvedMatrix } from "@loclab/statistics";
import type { Command } from "commander";
import { printTable } from "../table.js";

/**
 * `loclab compare --resolved FILE.csv [--holm]`: every system of a resolved matrix (first
 * column instance_id, one 0/1 column per system) with its resolve rate, Wilson interval and
 * clustered SE, and every pair with the exact McNemar p (Holm-adjusted with `--holm`; `pHolm`
 * is null without it). The file is parsed whole before anything is computed: a bad cell
 * names its line and column and nothing is printed.
 */
export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description("compare every pair of systems of a resolved matrix with the exact McNemar test")
    .requiredOption("--resolved <file>", "CSV: instance_id, then one 0/1 column per system")
    .option("--holm", "Holm-adjust the p-values over all pairs")
    .option("--json", "print one JSON object")
    .action(async (options: { resolved: string; holm?: boolean; json?: boolean }) => {
      const text = await readFile(options.resolved, "utf8").catch((error: NodeJS.ErrnoException) => {
        throw new Error(`cannot read ${options.resolved}: ${error.code ?? error.message}`);
      });
      const matrix = parseResolvedMatrix(text, { source: options.resolved });
      if (matrix.instanceIds.length === 0) throw new Error(`${options.resolved}: a header and no rows: no task to compare the systems on`);
      const comparison = compareSystems(matrix, { holm: options.holm ?? false });
      const pairs = comparison.pairs.map((pair) => ({ ...pair, pHolm: options.holm ? pair.pHolm : null }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ systems: comparison.systems, pairs })}\n`);
        return;
      }
      printTable(
        [...comparison.systems]
          .sort((a, b) => b.rate - a.rate)
          .map((s) => ({ system: s.name, resolved: s.resolved, n: s.n, rate: s.rate.toFixed(4), wilson95: `${s.wilson[0].toFixed(3)}–${s.wilson[1].toFixed(3)}`, clusteredSE: s.clusteredSE.toFixed(4) })),
      );
      const significant = pairs.filter((pair) => (options.holm ? (pair.pHolm ?? 1) : pair.p) < 0.05).length;
      process.stdout.write(`${pairs.length} pairs; ${significant} significant at 0.05${options.holm ? " after Holm" : " (unadjusted; --holm adjusts)"}\n`);
    });
}
