import type { CellScore, ControlComparison } from "@loclab/schemas";
import { exactMcNemar, pairedBootstrap, pairedCounts } from "@loclab/statistics";

export interface CompareControlsOptions {
  /** The metric compared (binary for McNemar; any for the bootstrap). */
  metric: string;
  seeds: readonly (number | null)[];
  instanceIds: readonly string[];
  resamples: number;
  bootstrapSeed: number;
  confidence: number;
}

/**
 * Each control against `plain` on one metric, per seed and pooled over seeds: the paired
 * difference, the exact McNemar p and mid-p (docs/definitions.md §7; NaN when the metric is not
 * binary), and a paired bootstrap interval (pooled: clustered by instance, since one instance's
 * seeds are not independent). Pure.
 */
export function compareControls(
  cells: readonly CellScore[],
  controls: readonly string[],
  options: CompareControlsOptions,
): ControlComparison[] {
  const rows: ControlComparison[] = [];
  for (const control of controls.filter((label) => label !== "plain")) {
    const pooled = { plain: [] as number[], other: [] as number[], clusters: [] as string[] };
    for (const seed of options.seeds) {
      const plain = cells.find((cell) => cell.control === "plain" && cell.seed === seed)?.perInstance[options.metric];
      const other = cells.find((cell) => cell.control === control && cell.seed === seed)?.perInstance[options.metric];
      if (!plain || !other) continue;
      const row = comparison(control, seed, { plain, other }, options);
      if (row) rows.push(row);
      pooled.plain.push(...plain);
      pooled.other.push(...other);
      pooled.clusters.push(...options.instanceIds);
    }
    if (options.seeds.length > 1 && pooled.plain.length > 0) {
      const row = comparison(control, "pooled", pooled, options);
      if (row) rows.push(row);
    }
  }
  return rows;
}

function comparison(
  control: string,
  seed: ControlComparison["seed"],
  pairs: { plain: number[]; other: number[]; clusters?: string[] },
  options: CompareControlsOptions,
): ControlComparison | undefined {
  const counted = pairs.plain.map((value, i) => Number.isFinite(value) && Number.isFinite(pairs.other[i]));
  const plain = pairs.plain.filter((_, i) => counted[i]);
  const other = pairs.other.filter((_, i) => counted[i]);
  if (plain.length === 0) return undefined;
  const counts = pairedCounts(plain, other);
  const test = counts.binary ? exactMcNemar({ b: counts.aOnly, c: counts.bOnly }) : { p: Number.NaN, midP: Number.NaN };
  const clusters = pairs.clusters?.filter((_, i) => counted[i]);
  const { resamples, bootstrapSeed: seedOfBootstrap, confidence } = options;
  const boot = pairedBootstrap({
    a: other,
    b: plain,
    resamples,
    seed: seedOfBootstrap,
    confidence,
    ...(clusters ? { clusters } : {}),
  });
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    control,
    seed,
    metric: options.metric,
    pairs: plain.length,
    plain: mean(plain),
    other: mean(other),
    difference: boot.estimate,
    b: counts.aOnly,
    c: counts.bOnly,
    p: test.p,
    midP: test.midP,
    lower: boot.lower,
    upper: boot.upper,
    confidence,
  };
}
