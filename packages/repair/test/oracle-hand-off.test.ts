import { describe, expect, it } from "vitest";
import { oracleHandOff } from "../src/index.js";

// The gold patch of the calc fixture (git's diff of the fix), and one touching two files.
const CALC_GOLD =
  'diff --git a/calc/ops.py b/calc/ops.py\nindex 1111111..2222222 100644\n--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -9,4 +9,4 @@ def average(values):\n     """Return the arithmetic mean of values."""\n     if not values:\n         raise ValueError("average of an empty sequence")\n-    return sum(values) / (len(values) - 1)\n+    return sum(values) / len(values)\n';

describe("oracleHandOff: the gold patch as a perfect localizer's locations", () => {
  it("the calc fix: one span, the removed line 12, rendered as the locations arm renders any prediction", () => {
    const { text, record } = oracleHandOff({ instance_id: "acme__calc-1", patch: CALC_GOLD });
    expect(text).toBe(
      [
        "## Localization",
        "",
        "A localization agent examined the repository for this issue. Where it found the problem:",
        "",
        "Locations (best first):",
        "- calc/ops.py:12-12 (edit)",
        "",
      ].join("\n"),
    );
    expect(record).toEqual({ kind: "locations", source: "gold", injected: true, locations: 1, chars: text.length });
  });
  it("a patch that does not parse is an error naming the instance", () => {
    expect(() => oracleHandOff({ instance_id: "acme__calc-9", patch: "not a diff" })).toThrow(/acme__calc-9/);
  });
});
