/**
 * Holm's step-down adjustment of p-values for m simultaneous tests (family-wise error rate),
 * as R's p.adjust(p, "holm"): with p_(1) ≤ … ≤ p_(m) sorted ascending,
 *
 *   p̃_(i) = min(1, max_{j ≤ i} (m − j + 1)·p_(j)),
 *
 * returned in the input order. Reject H_(i) when p̃_(i) ≤ α. The running maximum makes the
 * adjusted values monotone in the raw ones; tied raw p-values get equal adjusted values
 * whatever order the stable sort puts them in (at a tie, (m − j + 1)·p only shrinks, so the
 * maximum carries over). Adjusted ≥ raw always.
 *
 * Reference: S. Holm (1979), "A simple sequentially rejective multiple test procedure",
 * Scandinavian Journal of Statistics 6:65–70.
 * Errors: a value outside [0, 1] or NaN throws, naming its index. An empty list gives [].
 * Cost: O(m log m).
 *
 * @example holmAdjust([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  pValues.forEach((p, i) => {
    if (typeof p !== "number" || !(p >= 0 && p <= 1))
      throw new RangeError(`holmAdjust requires p-values in [0, 1], got ${String(p)} at index ${i}`);
  });
  const order = pValues.map((_, i) => i).sort((x, y) => (pValues[x] as number) - (pValues[y] as number) || x - y);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * (pValues[index] as number)));
    adjusted[index] = running;
  });
  return adjusted;
}
