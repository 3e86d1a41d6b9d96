import { describe, expect, it } from "vitest";
import { pairwiseMcNemar } from "../src/index.js";

// Hand-derived: p = 2·P(X ≤ min(b, c)), X ~ Bin(b + c, ½); Holm multiplies the k-th smallest of
// m p-values by (m − k + 1) and keeps the sequence non-decreasing.
describe("pairwiseMcNemar", () => {
  const pairs = pairwiseMcNemar(3, (a, b) => ({ aOnly: a, bOnly: b + 4, label: `${a}-${b}` }));

  it("compares every pair once, in order, keeping the caller's table", () => {
    expect(pairs.map((pair) => [pair.a, pair.b, pair.label])).toEqual([
      [0, 1, "0-1"],
      [0, 2, "0-2"],
      [1, 2, "1-2"],
    ]);
  });

  it("gives the exact McNemar p and Holm's adjustment", () => {
    // (0,1): 0 vs 5 → 2/32; (0,2): 0 vs 6 → 2/64; (1,2): 1 vs 6 → 2·8/128.
    // Computed in log space (binomial tails by log-sum-exp): equal to 1e-12 relative, not bit for bit.
    const close = (values: number[], expected: number[]) =>
      values.forEach((value, i) => expect(Math.abs(value / (expected[i] as number) - 1)).toBeLessThan(1e-12));
    close(
      pairs.map((pair) => pair.p),
      [0.0625, 0.03125, 0.125],
    );
    // Sorted 0.03125·3 = 0.09375, 0.0625·2 = 0.125, 0.125·1 = 0.125.
    close(
      pairs.map((pair) => pair.pHolm),
      [0.125, 0.09375, 0.125],
    );
  });

  it("without Holm, pHolm is p; no systems, no pairs; a bad count is refused", () => {
    expect(
      pairwiseMcNemar(3, () => ({ aOnly: 2, bOnly: 4 }), { holm: false }).every((pair) => pair.pHolm === pair.p),
    ).toBe(true);
    expect(pairwiseMcNemar(0, () => ({ aOnly: 0, bOnly: 0 }))).toEqual([]);
    expect(() => pairwiseMcNemar(-1, () => ({ aOnly: 0, bOnly: 0 }))).toThrow("non-negative integer count");
  });
});
