import type { ScoreReport } from "@loclab/metrics";
import { exactMcNemar, pairedCounts } from "@loclab/statistics";

/** One metric of two runs on the same instances: the paired table and the exact McNemar test. */
export interface PairedMetricComparison {
  /** `<level>.<metric>@<k>`, e.g. `file.acc@1`. */
  key: string;
  /** Instances scored in both runs. */
  n: number;
  meanA: number;
  meanB: number;
  /** Instances where only A scores 1 (b), only B (c); both, neither. */
  aOnly: number;
  bOnly: number;
  both: number;
  neither: number;
  /** Exact McNemar p of aOnly vs bOnly (docs/definitions.md §7). */
  p: number;
  midP: number;
}

/**
 * Two localization runs scored on the same benchmark and preset, compared per instance: for
 * every metric whose per-instance values are all 0 or 1 in both runs (hit@k and acc@k at any
 * level; recall, precision, MRR, MAP and span metrics take other values and are left out), the
 * paired table over the instances both runs score and the exact McNemar test. Pure: it reads
 * two score reports. Metrics are in report A's order; a metric missing from B is left out.
 *
 * Errors: the reports must cover the same instance ids in the same order (score both against
 * the same benchmark).
 */
export function compareScoreReports(a: ScoreReport, b: ScoreReport): PairedMetricComparison[] {
  if (a.instanceIds.length !== b.instanceIds.length || a.instanceIds.some((id, i) => id !== b.instanceIds[i])) {
    throw new Error(
      "compareScoreReports: the two reports cover different instances; score both runs against the same benchmark",
    );
  }
  const rows: PairedMetricComparison[] = [];
  for (const [key, metricA] of Object.entries(a.metrics)) {
    const metricB = b.metrics[key];
    const valuesA = metricA.perInstance;
    const valuesB = metricB?.perInstance;
    if (!valuesA || !valuesB) continue;
    const counts = pairedCounts(valuesA, valuesB);
    if (!counts.binary || counts.n === 0) continue;
    const { n, aOnly, bOnly, bothSolved: both, neither } = counts;
    // Binary: the means are the solved shares of the counted pairs.
    const sumA = both + aOnly;
    const sumB = both + bOnly;
    const test = exactMcNemar({ b: aOnly, c: bOnly });
    rows.push({
      key,
      n,
      meanA: sumA / n,
      meanB: sumB / n,
      aOnly,
      bOnly,
      both,
      neither,
      p: test.p,
      midP: test.midP,
    });
  }
  return rows;
}
