import { logsEval, type NotFoundReason } from "./logs-eval.js";
import {
  resolutionStatus,
  testsReport,
  type GoldTests,
  type ResolutionStatus,
  type TestsStatus,
} from "./tests-report.js";

/** One instance's entry of the harness's report.json (`get_eval_report`, tests status included). */
export interface InstanceReport {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  tests_status?: TestsStatus;
}

export interface GradeInput extends GoldTests {
  repo: string;
  /** A parser by name, for a repository the harness does not map (`pytest`, `django`, …). */
  parser?: string;
  /** The model patch; `null` is the harness's `patch_is_None`. */
  modelPatch: string | null;
  log: string;
}

export interface Grade {
  report: InstanceReport;
  resolution: ResolutionStatus | undefined;
  /** Why the log had no results (then `patch_successfully_applied` is false). */
  notFound: NotFoundReason | undefined;
}

/** The harness's `get_eval_report` on a log's text. */
export function gradeLog(input: GradeInput): Grade {
  const report: InstanceReport = {
    patch_is_None: false,
    patch_exists: false,
    patch_successfully_applied: false,
    resolved: false,
  };
  if (input.modelPatch === null)
    return { report: { ...report, patch_is_None: true }, resolution: undefined, notFound: undefined };
  report.patch_exists = true;
  const evaluated = logsEval(input.repo, input.log, input.parser ? { parser: input.parser } : {});
  if (!evaluated.found) return { report, resolution: undefined, notFound: evaluated.reason };
  report.patch_successfully_applied = true;
  const tests = testsReport(evaluated.statusMap, input);
  const resolution = resolutionStatus(tests);
  report.resolved = resolution === "RESOLVED_FULL";
  report.tests_status = tests;
  return { report, resolution, notFound: undefined };
}
