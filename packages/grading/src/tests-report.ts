import type { StatusMap } from "./test-status.js";

export interface SuccessFailure {
  success: string[];
  failure: string[];
}

/** `tests_status` of a report.json entry. FAIL_TO_FAIL and PASS_TO_FAIL stay empty, as in the harness. */
export interface TestsStatus {
  FAIL_TO_PASS: SuccessFailure;
  PASS_TO_PASS: SuccessFailure;
  FAIL_TO_FAIL: SuccessFailure;
  PASS_TO_FAIL: SuccessFailure;
}

export interface GoldTests {
  FAIL_TO_PASS: readonly string[];
  PASS_TO_PASS: readonly string[];
}

export type ResolutionStatus = "RESOLVED_FULL" | "RESOLVED_PARTIAL" | "RESOLVED_NO";

/** A test passes when the log says PASSED or XFAIL. */
export function testPassed(name: string, map: StatusMap): boolean {
  const status = map.get(name);
  return status === "PASSED" || status === "XFAIL";
}

/** A test fails when the log does not mention it, or says FAILED or ERROR (SKIPPED is neither). */
export function testFailed(name: string, map: StatusMap): boolean {
  const status = map.get(name);
  return status === undefined || status === "FAILED" || status === "ERROR";
}

function sort(names: readonly string[], map: StatusMap): SuccessFailure {
  const result: SuccessFailure = { success: [], failure: [] };
  for (const name of names) {
    if (testPassed(name, map)) result.success.push(name);
    else if (testFailed(name, map)) result.failure.push(name);
  }
  return result;
}

/** The harness's `get_eval_tests_report` (PASS_AND_FAIL, the Python repositories' rule). */
export function testsReport(map: StatusMap, gold: GoldTests): TestsStatus {
  return {
    FAIL_TO_PASS: sort(gold.FAIL_TO_PASS, map),
    PASS_TO_PASS: sort(gold.PASS_TO_PASS, map),
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}

function rate({ success, failure }: SuccessFailure): number {
  const total = success.length + failure.length;
  return total === 0 ? 1 : success.length / total;
}

/** FULL: every FAIL_TO_PASS and PASS_TO_PASS test passes; PARTIAL: some F2P, all P2P; else NO. */
export function resolutionStatus(report: Pick<TestsStatus, "FAIL_TO_PASS" | "PASS_TO_PASS">): ResolutionStatus {
  const f2p = rate(report.FAIL_TO_PASS);
  const p2p = rate(report.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return "RESOLVED_FULL";
  if (f2p > 0 && f2p < 1 && p2p === 1) return "RESOLVED_PARTIAL";
  return "RESOLVED_NO";
}
