import type { Prediction } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import { decideHandOff } from "../src/hand-off-decision.js";

const prediction: Prediction = {
  instanceId: "acme__calc-1",
  files: ["calc/ops.py"],
  locations: [{ path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit", symbol: "average" }],
  finding: {
    locationExplanation: "average is the mean.",
    rootCause: "It divides by len(values) - 1.",
    solutionIdea: "Divide by len(values).",
    dependencies: "calc/cli.py.",
    testingImpact: "tests/test_ops.py.",
  },
};
const judged = (composite: number, threshold = 4) => ({
  status: "judged" as const,
  scores: { rootCause: 4 },
  composite,
  threshold,
  passes: composite >= threshold,
  cached: false,
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  path: "judgements/x.json",
});

describe("decideHandOff", () => {
  it("locations hands the spans alone; findings hands the finding whatever the judge said", () => {
    const locations = decideHandOff({ arm: "locations", prediction, stageOutcome: "submitted" });
    expect(locations).toMatchObject({ kind: "locations", injected: true, locations: 1 });
    expect(locations.text).toContain("- calc/ops.py:8-12 (edit, average)");
    expect(locations.text).not.toContain("Root cause");
    const findings = decideHandOff({ arm: "findings", prediction, stageOutcome: "submitted", judgement: judged(2) });
    expect(findings).toMatchObject({ kind: "findings", injected: true });
    expect(findings.text).toContain("Root cause: It divides by len(values) - 1.");
  });

  it("judged injects at or above the threshold, and otherwise says why", () => {
    expect(decideHandOff({ arm: "judged", prediction, stageOutcome: "submitted", judgement: judged(4) })).toMatchObject(
      {
        injected: true,
      },
    );
    expect(decideHandOff({ arm: "judged", prediction, stageOutcome: "submitted", judgement: judged(11 / 3) })).toEqual({
      kind: "findings",
      injected: false,
      reason: "the judge's composite 3.67 is below the threshold 4",
      locations: 0,
    });
    const failed = {
      status: "model_error" as const,
      threshold: 4,
      passes: false,
      error: "http-5xx: 503",
      cached: false,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      path: null,
    };
    expect(decideHandOff({ arm: "judged", prediction, stageOutcome: "submitted", judgement: failed }).reason).toBe(
      "the judge gave no verdict (model_error): http-5xx: 503",
    );
    expect(decideHandOff({ arm: "judged", prediction, stageOutcome: "submitted" }).reason).toBe("the run has no judge");
  });

  it("nothing to hand on: no prediction, no location, no finding", () => {
    expect(decideHandOff({ arm: "locations", prediction: undefined, stageOutcome: "max_turns" }).reason).toBe(
      "the localizer stage ended max_turns without a prediction",
    );
    expect(
      decideHandOff({
        arm: "locations",
        prediction: { ...prediction, files: [], locations: [] },
        stageOutcome: "submitted",
      }).reason,
    ).toBe("the localizer's prediction has no location");
    const { finding: _finding, ...bare } = prediction;
    expect(decideHandOff({ arm: "findings", prediction: bare, stageOutcome: "submitted" }).reason).toBe(
      "the localizer's prediction has no finding",
    );
    expect(decideHandOff({ arm: "locations", prediction: bare, stageOutcome: "submitted" }).injected).toBe(true);
  });
});
