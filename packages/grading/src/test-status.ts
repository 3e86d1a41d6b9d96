/** The harness's test statuses (`TestStatus`); a status map holds these as strings. */
export const TEST_STATUSES = ["FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL"] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/**
 * A parsed log: test name → status, in the order the parser first met each name (Python's dict
 * order; a later line for the same name changes the status, not the position). A value is the
 * token the parser read, which the pytest rules take verbatim from the line.
 */
export type StatusMap = Map<string, string>;

export function startsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((status) => line.startsWith(status));
}

export function endsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((status) => line.endsWith(status));
}
