import { END_TEST_OUTPUT, START_TEST_OUTPUT } from "./logs-eval.js";
import { modifiedFiles, newFiles, testDirectives } from "./test-directives.js";

export const HEREDOC_DELIMITER = "EOF_114329324912";

export interface EvalScriptInput {
  repo: string;
  baseCommit: string;
  testPatch: string;
  /** The repository × version's test command (`pytest -rA`, django's runtests.py, …). */
  testCmd: string;
  /** Commands run first and again before the install (the harness: conda's activate). */
  activate: readonly string[];
  /** The spec's `eval_commands` (django's locale exports). */
  evalCommands?: readonly string[];
  /** The spec's `install`, re-run before the tests (`python -m pip install -e .`). */
  install?: string;
  /** Where the repository is inside the container; the harness's is /testbed. */
  repoDirectory?: string;
  /** Record the test command's exit code after the end marker (default true; false gives the harness's script byte for byte). */
  recordExitCode?: boolean;
  /**
   * How the test files are reset: `separate` (default; the harness since SWE-bench #539, March
   * 2026) checks out the modified ones and removes the new ones (`rm -f`); `checkout` is swebench
   * 4.1.0's single `git checkout <base> <modified files>`, which for a test patch that only adds
   * files is a bare `git checkout <base>`: it moves HEAD off the harness's setup commit and
   * undoes the setup's changes (sphinx's `-rA` in tox.ini: the gold patch of
   * sphinx-doc__sphinx-8595 never resolved).
   */
  testReset?: "separate" | "checkout";
}

/**
 * The harness's eval.sh (`make_eval_script_list_py` under `#!/bin/bash` + `set -uxo pipefail`):
 * informational git output, the install again, the test files reset to the base commit, the
 * test patch applied from a here-document, the test command between the two markers (which
 * `set -x` echoes as `+ : '>>>>> Start Test Output'`), and the test files reset again.
 * loclab adds the test command's exit code after the end marker (as the 5.x harness does):
 * grading does not read it, the infrastructure checks and a reader of the log can.
 */
export function evalScript(input: EvalScriptInput): string {
  const directory = input.repoDirectory ?? "/testbed";
  const record = input.recordExitCode ?? true;
  const modified = modifiedFiles(input.testPatch);
  const created = newFiles(input.testPatch);
  const reset =
    (input.testReset ?? "separate") === "checkout"
      ? [`git checkout ${input.baseCommit} ${modified.join(" ")}`]
      : [
          ...(modified.length > 0 ? [`git checkout ${input.baseCommit} ${modified.join(" ")}`] : []),
          ...(created.length > 0 ? [`rm -f ${created.join(" ")}`] : []),
        ];
  const testCommand = [input.testCmd, ...testDirectives(input.repo, input.testPatch)].join(" ");
  const lines = [
    "#!/bin/bash",
    "set -uxo pipefail",
    ...input.activate,
    `cd ${directory}`,
    ...(input.evalCommands ?? []),
    `git config --global --add safe.directory ${directory}`,
    `cd ${directory}`,
    "git status",
    "git show",
    `git -c core.fileMode=false diff ${input.baseCommit}`,
    ...input.activate,
    ...(input.install ? [input.install] : []),
    ...reset,
    `git apply -v - <<'${HEREDOC_DELIMITER}'\n${input.testPatch}\n${HEREDOC_DELIMITER}`,
    `: '${START_TEST_OUTPUT}'`,
    testCommand,
    ...(record ? ["LOCLAB_TEST_EXIT_CODE=$?"] : []),
    `: '${END_TEST_OUTPUT}'`,
    ...(record ? ['echo ">>>>> Test Exit Code: $LOCLAB_TEST_EXIT_CODE"'] : []),
    ...reset,
  ];
  return `${lines.join("\n")}\n`;
}

/** The harness images' environment: conda's testbed. */
export const CONDA_ACTIVATE = ["source /opt/miniconda3/bin/activate", "conda activate testbed"] as const;
