import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holmAdjust, pairedMinimumDetectableEffect, pairedPower, pairedSampleSize } from "../src/index.js";

describe("Connor (1987) sample size, power and minimum detectable effect (docs/definitions.md §7)", () => {
  it("hand value: ψ = 0.2, δ = 0.05, α = 0.05, power 0.8", () => {
    // z_{0.975} = 1.959963984540054, z_{0.8} = 0.8416212335729143:
    // n = (1.95996·√0.2 + 0.84162·√0.1975)² / 0.0025 = 625.547…
    const design = pairedSampleSize({ psi: 0.2, delta: 0.05 });
    const expected = (1.959963984540054 * Math.sqrt(0.2) + 0.8416212335729143 * Math.sqrt(0.2 - 0.0025)) ** 2 / 0.0025;
    expect(design.nExact).toBeCloseTo(expected, 9);
    expect(design).toMatchObject({ psi: 0.2, delta: 0.05, alpha: 0.05, power: 0.8, n: 626 });
  });

  const arbDesign = fc.record({
    psi: fc.double({ min: 0.01, max: 1, noNaN: true }),
    fraction: fc.double({ min: 0.02, max: 0.95, noNaN: true }),
    alpha: fc.constantFrom(0.1, 0.05, 0.01, 0.001),
    power: fc.double({ min: 0.55, max: 0.99, noNaN: true }),
  });

  it("round trips: power at nExact is the requested power; the MDE at nExact is δ (1e-9 relative)", () => {
    fc.assert(
      fc.property(arbDesign, ({ psi, fraction, alpha, power }) => {
        const delta = psi * fraction;
        const design = pairedSampleSize({ psi, delta, alpha, power });
        // n is the ceiling, except that rounding noise (1e-12 relative) does not add a task.
        expect(design.n).toBeGreaterThanOrEqual(design.nExact * (1 - 1e-12));
        expect(design.n - design.nExact).toBeLessThan(1);
        expect(pairedPower({ psi, delta, n: design.nExact, alpha }).power).toBeCloseTo(power, 9);
        const mde = pairedMinimumDetectableEffect({ psi, n: design.nExact, alpha, power });
        expect(Math.abs(mde.delta - delta) / delta).toBeLessThan(1e-9);
        // More tasks, more power.
        expect(pairedPower({ psi, delta, n: design.n * 2, alpha }).power).toBeGreaterThan(power);
      }),
      { numRuns: 300 },
    );
  });

  it("power stays positive (not 0) for hopeless designs, and is 1 when every pair is discordant one way", () => {
    // Φ((0.01·√2 − z_{1−5e-7}·√0.5)/√(0.5 − 1e-4)) = Φ(−4.87) ≈ 5.6e-7.
    const weak = pairedPower({ psi: 0.5, delta: 0.01, n: 2, alpha: 1e-6 }).power;
    expect(weak).toBeGreaterThan(1e-7);
    expect(weak).toBeLessThan(1e-6);
    expect(pairedPower({ psi: 1, delta: 1, n: 10 }).power).toBe(1);
  });

  it("names what it refuses", () => {
    expect(() => pairedSampleSize({ psi: 0.2, delta: 0.3 })).toThrow(
      "pairedSampleSize requires delta to satisfy 0 < delta ≤ psi = 0.2, got 0.3",
    );
    expect(() => pairedSampleSize({ psi: 0, delta: 0.1 })).toThrow(
      "pairedSampleSize requires psi (the discordant-pair rate) to be in (0, 1], got 0",
    );
    expect(() => pairedSampleSize({ psi: 0.2, delta: -0.1 })).toThrow(RangeError);
    expect(() => pairedSampleSize({ psi: 0.2, delta: 0.1, power: 1 })).toThrow(
      "pairedSampleSize requires power to be a number strictly between 0 and 1, got 1",
    );
    expect(() => pairedPower({ psi: 0.2, delta: 0.1, n: 0 })).toThrow(
      "pairedPower requires n to be a finite number greater than 0, got 0",
    );
    expect(() => pairedMinimumDetectableEffect({ psi: 0.2, n: 3 })).toThrow(
      "pairedMinimumDetectableEffect: no difference δ ≤ psi = 0.2 reaches power 0.8 at alpha 0.05 with n = 3; n must be at least 37",
    );
    // The smallest n named is enough.
    expect(pairedMinimumDetectableEffect({ psi: 0.2, n: 37 }).delta).toBeLessThanOrEqual(0.2);
  });
});

describe("holmAdjust", () => {
  it("hand value and R's p.adjust example", () => {
    expect(holmAdjust([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holmAdjust([])).toEqual([]);
    expect(holmAdjust([0.2])).toEqual([0.2]);
    expect(holmAdjust([0.5, 0.6])).toEqual([1, 1]);
  });

  it("ties get equal adjusted values", () => {
    expect(holmAdjust([0.02, 0.01, 0.02, 0.02])).toEqual([0.06, 0.04, 0.06, 0.06]);
  });

  it("adjusted ≥ raw, ≤ 1, and monotone in the raw values (input order kept)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 0.01, 0.05, 1)), {
          maxLength: 60,
        }),
        (p) => {
          const adjusted = holmAdjust(p);
          expect(adjusted).toHaveLength(p.length);
          p.forEach((raw, i) => {
            expect(adjusted[i]).toBeGreaterThanOrEqual(raw);
            expect(adjusted[i]).toBeLessThanOrEqual(1);
            p.forEach((other, j) => {
              if (raw <= other) expect(adjusted[i]).toBeLessThanOrEqual(adjusted[j] as number);
            });
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("names what it refuses", () => {
    expect(() => holmAdjust([0.1, 1.2])).toThrow("holmAdjust requires p-values in [0, 1], got 1.2 at index 1");
    expect(() => holmAdjust([Number.NaN])).toThrow(RangeError);
  });
});
