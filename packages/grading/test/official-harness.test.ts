import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gradeLog, logsEval, PARSER_FOR_REPO, resolutionStatus, testsReport, type TestsStatus } from "../src/index.js";

// The official SWE-bench harness's answers (swebench 4.1.0 from the Python package index, run by
// fixtures/generate.py) on 44 logs: crafted ones for every parser and status, two excerpts of
// real harness logs, and four real logs of loclab's own containers on SWE-bench Lite instances
// (seaborn, pylint, pytest: the harness agrees that the two gold runs resolve). loclab must agree on every case: the parse (names, statuses and the
// order the harness met them), whether results were found, the tests report, the resolution
// and the report.json entry.
interface Case {
  name: string;
  repo: string;
  parser: string;
  log: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  found: boolean;
  parsed: Record<string, string>;
  tests_status: TestsStatus;
  resolution: string;
  report: Record<string, unknown>;
}
const reference = JSON.parse(readFileSync(new URL("../fixtures/reference.json", import.meta.url), "utf8")) as {
  harness: { version: string };
  cases: Case[];
};

describe(`log parsers and grading agree with the official harness (swebench ${reference.harness.version})`, () => {
  it("covers every parser the harness maps the Lite repositories to, and every status", () => {
    const parsers = new Set(reference.cases.map((entry) => entry.parser.replace(/^parse_log_/, "")));
    expect([...parsers].sort()).toEqual([
      "django",
      "matplotlib",
      "pytest",
      "pytest_options",
      "pytest_v2",
      "seaborn",
      "sympy",
    ]);
    const statuses = new Set(reference.cases.flatMap((entry) => Object.values(entry.parsed)));
    for (const status of ["PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"]) expect(statuses).toContain(status);
    for (const entry of reference.cases)
      expect(PARSER_FOR_REPO[entry.repo]?.name).toBe(entry.parser.replace(/^parse_log_/, ""));
  });

  for (const entry of reference.cases) {
    it(entry.name, () => {
      const evaluated = logsEval(entry.repo, entry.log);
      expect(evaluated.found).toBe(entry.found);
      // Key order too: Python's dict keeps first-insertion order, as a Map does.
      expect([...evaluated.statusMap.entries()]).toEqual(Object.entries(entry.parsed));
      const tests = testsReport(evaluated.statusMap, entry);
      expect(tests).toEqual(entry.tests_status);
      expect(resolutionStatus(tests)).toBe(entry.resolution);
      const { report } = gradeLog({
        repo: entry.repo,
        modelPatch: "diff --git a/x b/x\n",
        log: entry.log,
        FAIL_TO_PASS: entry.FAIL_TO_PASS,
        PASS_TO_PASS: entry.PASS_TO_PASS,
      });
      expect(report).toEqual(entry.report);
    });
  }
});
