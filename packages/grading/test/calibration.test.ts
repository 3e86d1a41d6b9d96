import { describe, expect, it } from "vitest";
import { calibrateInstance, withoutFlaky } from "../src/index.js";

const map = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe("calibration", () => {
  it("a test that passes in two gold runs and fails in the third is flaky; one failing in all three is gold-failing; an F2P test passing on the base commit tests nothing", () => {
    const calibration = calibrateInstance({
      gold: [
        map({ f2p: "PASSED", net: "PASSED", broken: "FAILED", p2p: "PASSED" }),
        map({ f2p: "PASSED", net: "FAILED", broken: "ERROR", p2p: "PASSED" }),
        map({ f2p: "PASSED", net: "PASSED", p2p: "PASSED" }),
      ],
      empty: map({ f2p: "FAILED", trivially: "PASSED", p2p: "PASSED" }),
      FAIL_TO_PASS: ["f2p", "trivially"],
      PASS_TO_PASS: ["p2p", "net", "broken"],
    });
    // "trivially" is missing from every gold log: it fails there too (missing = failed).
    expect(calibration).toEqual({
      flaky: ["net"],
      goldFailing: ["trivially", "broken"],
      passWithoutFix: ["trivially"],
      goldResolvesWithoutFlaky: false,
    });
  });

  it("a skipped test is neither pass nor fail, so a pass / skip flip is flaky too; with the flaky ones left out gold resolves", () => {
    const calibration = calibrateInstance({
      gold: [map({ a: "PASSED", b: "SKIPPED" }), map({ a: "PASSED", b: "PASSED" })],
      empty: undefined,
      FAIL_TO_PASS: ["a"],
      PASS_TO_PASS: ["b"],
    });
    expect(calibration).toEqual({ flaky: ["b"], goldFailing: [], passWithoutFix: [], goldResolvesWithoutFlaky: true });
    expect(withoutFlaky({ FAIL_TO_PASS: ["a"], PASS_TO_PASS: ["b", "c"], extra: 1 }, calibration.flaky)).toEqual({
      FAIL_TO_PASS: ["a"],
      PASS_TO_PASS: ["c"],
      extra: 1,
    });
  });
});
