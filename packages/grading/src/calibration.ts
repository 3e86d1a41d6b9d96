import { testFailed, testPassed } from "./tests-report.js";
import type { StatusMap } from "./test-status.js";

/** A test's verdict in one run: pass (PASSED / XFAIL), fail (missing / FAILED / ERROR), or neither (SKIPPED). */
export type TestVerdict = "pass" | "fail" | "skip";

export function testVerdict(name: string, map: StatusMap): TestVerdict {
  return testPassed(name, map) ? "pass" : testFailed(name, map) ? "fail" : "skip";
}

export interface InstanceCalibration {
  /** Tests whose verdict differs between the gold runs: a comparison should not count them. */
  flaky: string[];
  /** FAIL_TO_PASS / PASS_TO_PASS tests that fail in every gold run: the environment cannot pass them. */
  goldFailing: string[];
  /** FAIL_TO_PASS tests that pass on the base commit (the empty patch): they test nothing here. */
  passWithoutFix: string[];
  /** Whether every gold run resolves the instance with the flaky tests left out. */
  goldResolvesWithoutFlaky: boolean;
}

/**
 * What the calibration runs say of an instance's tests: the gold patch run several times, the
 * empty patch once, each as a parsed log. Pure, so a comparison can be re-graded from the logs.
 */
export function calibrateInstance(input: {
  gold: readonly StatusMap[];
  empty: StatusMap | undefined;
  FAIL_TO_PASS: readonly string[];
  PASS_TO_PASS: readonly string[];
}): InstanceCalibration {
  const tests = [...new Set([...input.FAIL_TO_PASS, ...input.PASS_TO_PASS])];
  const flaky = tests.filter((name) => new Set(input.gold.map((map) => testVerdict(name, map))).size > 1);
  const goldFailing = tests.filter(
    (name) => input.gold.length > 0 && input.gold.every((map) => testVerdict(name, map) === "fail"),
  );
  const passWithoutFix = input.empty
    ? input.FAIL_TO_PASS.filter((name) => testVerdict(name, input.empty!) === "pass")
    : [];
  const kept = tests.filter((name) => !flaky.includes(name));
  const goldResolvesWithoutFlaky =
    input.gold.length > 0 && input.gold.every((map) => kept.every((name) => testVerdict(name, map) !== "fail"));
  return { flaky, goldFailing, passWithoutFix, goldResolvesWithoutFlaky };
}

/** FAIL_TO_PASS / PASS_TO_PASS without the tests a calibration found flaky (for a comparison that excludes them). */
export function withoutFlaky<T extends { FAIL_TO_PASS: readonly string[]; PASS_TO_PASS: readonly string[] }>(
  gold: T,
  flaky: readonly string[],
): T {
  const drop = new Set(flaky);
  return {
    ...gold,
    FAIL_TO_PASS: gold.FAIL_TO_PASS.filter((name) => !drop.has(name)),
    PASS_TO_PASS: gold.PASS_TO_PASS.filter((name) => !drop.has(name)),
  };
}
