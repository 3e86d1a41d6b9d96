import type { TransferObservation } from "@loclab/analysis";
import { describe, expect, it } from "vitest";
import { transferReport } from "../src/transfer-report.js";

/** One observation; tokens: 100 total, 40 of them before the first edit, unless given. */
const obs = (
  arm: string,
  framework: string,
  task: number,
  resolved: boolean,
  extra: Partial<TransferObservation> = {},
): TransferObservation => ({
  instanceId: `acme__calc-${task}`,
  seed: 1,
  arm,
  framework,
  resolved,
  tokens: { localization: 40, total: 100 },
  ...extra,
});

describe("transferReport: per framework and pooled", () => {
  // Two frameworks on the same three tasks: loclab's fixer gains two tasks with the finding, mini-swe-agent one.
  const observations: TransferObservation[] = [
    obs("single", "loclab", 1, true),
    obs("single", "loclab", 2, false),
    obs("single", "loclab", 3, false),
    obs("findings", "loclab", 1, true, { composite: 5, injected: true, tokens: { localization: 20, total: 80 } }),
    obs("findings", "loclab", 2, true, { composite: 4, injected: true, tokens: { localization: 20, total: 80 } }),
    obs("findings", "loclab", 3, true, { composite: 3, injected: true, tokens: { localization: 20, total: 80 } }),
    obs("single", "mini-swe-agent", 1, false),
    obs("single", "mini-swe-agent", 2, true),
    obs("single", "mini-swe-agent", 3, false),
    obs("findings", "mini-swe-agent", 1, true, { composite: 5, injected: true }),
    obs("findings", "mini-swe-agent", 2, true, { composite: 4, injected: true }),
    obs("findings", "mini-swe-agent", 3, false, { composite: 3, injected: true }),
  ];

  it("each framework alone, then pooled (pairs never cross frameworks)", () => {
    const report = transferReport(observations, { control: "plain", resamples: 500 });
    expect(report.frameworks).toEqual(["loclab", "mini-swe-agent"]);
    expect(report.arms.map((row) => [row.framework, row.n, row.baselineOnly, row.armOnly])).toEqual([
      ["loclab", 3, 0, 2],
      ["mini-swe-agent", 3, 0, 1],
      ["pooled", 6, 0, 3],
    ]);
    const pooled = report.arms.find((row) => row.framework === "pooled")!;
    expect(pooled.armRate).toBeCloseTo(5 / 6, 12);
    expect(pooled.baselineRate).toBeCloseTo(2 / 6, 12);
    // SHERLOC's form: (arm − baseline) / baseline of the token sums, pooled: (180 − 240) / 240 and (540 − 600) / 600.
    expect(pooled.tokens.localization.relativeChangePercent).toBeCloseTo(-25, 12);
    expect(pooled.tokens.total.relativeChangePercent).toBeCloseTo(-10, 12);
    // Bins and sweep per framework and pooled: 4 bins × 3 scopes, 17 thresholds × 3 scopes.
    expect(report.bins).toHaveLength(12);
    expect(report.bins.find((bin) => bin.framework === "pooled" && bin.bin === "> 4")).toMatchObject({
      n: 2,
      armRate: 1,
      baselineRate: 0.5,
    });
    expect(report.sweep).toHaveLength(51);
    // No judged arm in this run: nothing to check against.
    expect(report.judgedCheck).toBeNull();
  });

  it("a baseline arm absent under the control is an error naming the arms there", () => {
    expect(() => transferReport(observations, { control: "plain", baseline: "none", resamples: 100 })).toThrow(
      "no attempt of the baseline arm none under plain (arms: single, findings)",
    );
  });
});
