import { describe, expect, it } from "vitest";
import { renderFindingForRepair, renderHandOff } from "../src/index.js";

const prediction = {
  files: ["calc/ops.py"],
  locations: [
    { path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit" as const, symbol: "average" },
    { path: "calc/cli.py", startLine: 6, endLine: 7, role: "read" as const },
  ],
  finding: {
    locationExplanation: "average computes the mean.",
    rootCause: "It divides by len(values) - 1.",
    solutionIdea: "Divide by len(values).",
    dependencies: "calc/cli.py prints it.",
    testingImpact: "tests/test_ops.py.",
  },
};

describe("renderHandOff: one text for every framework and arm", () => {
  it("locations: the spans alone, best first, under one heading", () => {
    expect(renderHandOff({ kind: "locations", prediction })).toBe(
      [
        "## Localization",
        "",
        "A localization agent examined the repository for this issue. Where it found the problem:",
        "",
        "Locations (best first):",
        "- calc/ops.py:8-12 (edit, average)",
        "- calc/cli.py:6-7 (read)",
        "",
      ].join("\n"),
    );
  });
  it("findings: the spans and the five fields, root cause first; the judge's filter renders the same text", () => {
    const text = renderHandOff({ kind: "findings", prediction });
    expect(text.split("\n").slice(0, 3)).toEqual([
      "## Localization finding",
      "",
      "A localization agent examined the repository for this issue. Its finding:",
    ]);
    expect(text).toContain(
      "- calc/cli.py:6-7 (read)\n\nRoot cause: It divides by len(values) - 1.\nLocation explanation:",
    );
    expect(renderFindingForRepair({ instanceId: "acme__calc-1", ...prediction })).toBe(text);
  });
  it("a findings hand-off without a finding renders as locations; files stand in for missing spans; nothing says none", () => {
    const { finding: _finding, ...bare } = prediction;
    expect(renderHandOff({ kind: "findings", prediction: bare })).toBe(
      renderHandOff({ kind: "locations", prediction: bare }),
    );
    expect(renderHandOff({ kind: "locations", prediction: { files: ["a.py", "b.py"], locations: [] } })).toContain(
      "Locations (best first):\n- a.py\n- b.py\n",
    );
    expect(renderHandOff({ kind: "locations", prediction: { files: [], locations: [] } })).toContain("- (none)");
  });
});
