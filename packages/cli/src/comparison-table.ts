import type { ControlComparison } from "@loclab/schemas";

/**
 * The rows of a run's paired comparisons (each control against plain), as `loclab run score`
 * and `loclab breakdown RUN_DIR` print them: the difference in points with its interval, the
 * discordant counts and the exact McNemar p and mid-p (`n/a` when the metric is not binary).
 */
export function comparisonRows(comparisons: readonly ControlComparison[]): object[] {
  const precision = (value: number) => (Number.isFinite(value) ? value.toPrecision(3) : "n/a");
  return comparisons.map((row) => ({
    control: row.control,
    seed: row.seed ?? "none",
    pairs: row.pairs,
    difference: `${row.difference >= 0 ? "+" : ""}${(100 * row.difference).toFixed(2)}`,
    [`${Math.round(100 * row.confidence)} % interval`]: `[${(100 * row.lower).toFixed(2)}, ${(100 * row.upper).toFixed(2)}]`,
    b: row.b,
    c: row.c,
    p: precision(row.p),
    midP: precision(row.midP),
  }));
}
