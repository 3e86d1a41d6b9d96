import type { BenchmarkGoldSummary } from "./summarize-gold.js";
import type { GoldFailure } from "./extract-gold.js";
import { max, mean, median } from "simple-statistics";

/** Mean, median and maximum of a per-instance count. */
export interface CountStats {
  mean: number;
  median: number;
  max: number;
}

/** What `reproduce` reports for one benchmark: its size, gold shape and any failures. */
export interface BenchmarkGoldReport {
  benchmark: string;
  path: string;
  instances: number;
  repos: number;
  emptyGold: number;
  failures: GoldFailure[];
  multiFileInstances: number;
  instancesWithCreatedFiles: number;
  goldFilesPerInstance: CountStats;
  spansPerInstance: CountStats;
  hunksPerInstance: CountStats;
}

function stats(values: number[]): CountStats {
  if (values.length === 0) return { mean: 0, median: 0, max: 0 };
  return { mean: mean(values), median: median(values), max: max(values) };
}

/** Condenses a benchmark's gold summary into the figures `reproduce` prints and saves. */
export function benchmarkGoldReport(
  summary: BenchmarkGoldSummary,
  path: string,
  failures: GoldFailure[],
): BenchmarkGoldReport {
  const rows = summary.perInstance;
  return {
    benchmark: summary.benchmark,
    path,
    instances: summary.instances,
    repos: summary.repos.length,
    emptyGold: summary.emptyGold,
    failures,
    multiFileInstances: rows.filter((row) => row.goldFiles > 1).length,
    instancesWithCreatedFiles: rows.filter((row) => row.createdFiles > 0).length,
    goldFilesPerInstance: stats(rows.map((row) => row.goldFiles)),
    spansPerInstance: stats(rows.map((row) => row.spans)),
    hunksPerInstance: stats(rows.map((row) => row.hunks)),
  };
}
