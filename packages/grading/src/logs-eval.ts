import { parserByName, parserFor } from "./log-parsers.js";
import { universalNewlines } from "./python-text.js";
import type { StatusMap } from "./test-status.js";

export const START_TEST_OUTPUT = ">>>>> Start Test Output";
export const END_TEST_OUTPUT = ">>>>> End Test Output";
export const APPLY_PATCH_FAIL = ">>>>> Patch Apply Failed";
export const APPLY_PATCH_PASS = ">>>>> Applied Patch";
export const RESET_FAILED = ">>>>> Reset Failed";
export const TESTS_ERROR = ">>>>> Tests Errored";
export const TESTS_TIMEOUT = ">>>>> Tests Timed Out";

/** Why a log gives no results: one of the harness's failure markers, or a missing test marker. */
export type NotFoundReason =
  | "patch-apply-failed"
  | "reset-failed"
  | "tests-errored"
  | "tests-timed-out"
  | "no-start-marker"
  | "no-end-marker";

export type LogsEval =
  | { found: true; statusMap: StatusMap }
  | { found: false; reason: NotFoundReason; statusMap: StatusMap };

const BAD_CODES: [string, NotFoundReason][] = [
  [APPLY_PATCH_FAIL, "patch-apply-failed"],
  [RESET_FAILED, "reset-failed"],
  [TESTS_ERROR, "tests-errored"],
  [TESTS_TIMEOUT, "tests-timed-out"],
];

/**
 * The harness's `get_logs_eval` on a log's text: no results when a failure marker appears
 * anywhere or a test marker is missing; otherwise the repository's parser on the text between
 * the first start marker and the next end marker, or on the whole log when that parses to
 * nothing (v4.1.0). The text is read as Python reads a file in text mode (\r\n and \r → \n).
 */
export function logsEval(repo: string, logText: string, options: { parser?: string } = {}): LogsEval {
  const { parse } = options.parser ? parserByName(options.parser) : parserFor(repo);
  const content = universalNewlines(logText);
  for (const [code, reason] of BAD_CODES)
    if (content.includes(code)) return { found: false, reason, statusMap: new Map() };
  if (!content.includes(START_TEST_OUTPUT)) return { found: false, reason: "no-start-marker", statusMap: new Map() };
  if (!content.includes(END_TEST_OUTPUT)) return { found: false, reason: "no-end-marker", statusMap: new Map() };
  const afterStart = content.split(START_TEST_OUTPUT)[1]!;
  const section = afterStart.split(END_TEST_OUTPUT)[0]!;
  let statusMap = parse(section);
  if (statusMap.size === 0) statusMap = parse(content);
  return { found: true, statusMap };
}
