import type { ScoreReport } from "@loclab/metrics";
import { exactMcNemar } from "@loclab/statistics";

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
    let n = 0;
    let sumA = 0;
    let sumB = 0;
    let aOnly = 0;
    let bOnly = 0;
    let both = 0;
    let binary = true;
    for (let i = 0; i < valuesA.length && binary; i += 1) {
      const x = valuesA[i] as number;
      const y = valuesB[i] as number;
      if (Number.isNaN(x) || Number.isNaN(y)) continue;
      if ((x !== 0 && x !== 1) || (y !== 0 && y !== 1)) binary = false;
      n += 1;
      sumA += x;
      sumB += y;
      if (x === 1 && y === 1) both += 1;
      else if (x === 1) aOnly += 1;
      else if (y === 1) bOnly += 1;
    }
    if (!binary || n === 0) continue;
    const test = exactMcNemar({ b: aOnly, c: bOnly });
    rows.push({
      key,
      n,
      meanA: sumA / n,
      meanB: sumB / n,
      aOnly,
      bOnly,
      both,
      neither: n - aOnly - bOnly - both,
      p: test.p,
      midP: test.midP,
    });
  }
  return rows;
}
