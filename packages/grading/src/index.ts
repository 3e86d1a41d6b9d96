export { pyLstrip, pySplit, pyStrip, universalNewlines } from "./python-text.js";
export { endsWithStatus, startsWithStatus, TEST_STATUSES, type StatusMap, type TestStatus } from "./test-status.js";
export {
  parseDjango,
  parseMatplotlib,
  parsePytest,
  parsePytestOptions,
  parsePytestV2,
  PARSER_NAMES,
  parserByName,
  parserFor,
  PARSER_FOR_REPO,
  parseSeaborn,
  parseSympy,
  UnknownRepositoryError,
  type LogParser,
} from "./log-parsers.js";
export {
  APPLY_PATCH_FAIL,
  APPLY_PATCH_PASS,
  END_TEST_OUTPUT,
  logsEval,
  RESET_FAILED,
  START_TEST_OUTPUT,
  TESTS_ERROR,
  TESTS_TIMEOUT,
  type LogsEval,
  type NotFoundReason,
} from "./logs-eval.js";
export {
  resolutionStatus,
  testFailed,
  testPassed,
  testsReport,
  type GoldTests,
  type ResolutionStatus,
  type SuccessFailure,
  type TestsStatus,
} from "./tests-report.js";
export { gradeLog, type Grade, type GradeInput, type InstanceReport } from "./eval-report.js";
export { modifiedFiles, newFiles, NON_TEST_SUFFIXES, testDirectives } from "./test-directives.js";
export { CONDA_ACTIVATE, evalScript, HEREDOC_DELIMITER, type EvalScriptInput } from "./eval-script.js";
export type { HarnessSpec, HarnessSpecsData } from "./harness-spec-types.js";
export {
  environmentPaths,
  harnessSpec,
  harnessSpecs,
  HARNESS_VERSION,
  requirementReplacements,
  requirementsPaths,
  requirementsText,
  testCommand,
  UnknownSpecError,
} from "./harness-specs.js";
export {
  calibrateInstance,
  testVerdict,
  withoutFlaky,
  type InstanceCalibration,
  type TestVerdict,
} from "./calibration.js";
