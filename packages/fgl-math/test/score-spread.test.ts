import { describe, expect, it } from "vitest";
import { spreadDistribution, withinTaskSpread } from "../src/index.js";

// The within-task spread (docs/definitions.md §6), checked by hand.
describe("withinTaskSpread and spreadDistribution", () => {
  it("is the sample standard deviation (n − 1)", () => {
    // mean −0.6, squared deviations 0.01 + 0 + 0.01 over n − 1 = 2 → 0.01 → 0.1.
    expect(withinTaskSpread([-0.5, -0.6, -0.7])).toBeCloseTo(0.1, 15);
    // Two scores a and b: |a − b| / √2.
    expect(withinTaskSpread([-0.5, -0.4])).toBeCloseTo(0.1 / Math.SQRT2, 15);
    expect(withinTaskSpread([-0.5])).toBeUndefined();
    expect(withinTaskSpread([2, 2, 2])).toBe(0);
  });

  it("quartiles by linear interpolation between order statistics (numpy's default)", () => {
    // Positions q·(n − 1) in [1, 2, 3, 4]: 0.75 → 1.75, 1.5 → 2.5, 2.25 → 3.25.
    expect(spreadDistribution([4, 1, 3, 2])).toEqual({ tasks: 4, min: 1, q1: 1.75, median: 2.5, q3: 3.25, max: 4 });
    expect(spreadDistribution([0.068])).toEqual({
      tasks: 1,
      min: 0.068,
      q1: 0.068,
      median: 0.068,
      q3: 0.068,
      max: 0.068,
    });
    expect(spreadDistribution([])).toBeUndefined();
  });
});
