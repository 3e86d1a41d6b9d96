// The scripted fixer's and localizer's tool calls on the calc fixture (packages/fixtures: the
// mean divides by len(values) - 1), shared by the repair-run tests so that each scripts the
// same fix, the same wrong edit and the same localization.

/** A tool call as the scripted model server answers it. */
export const call = (name: string, args: unknown) => ({ name, arguments: JSON.stringify(args) });

/** The fix of calc's bug. */
export const FIX = call("edit_file", {
  path: "calc/ops.py",
  old_text: "return sum(values) / (len(values) - 1)",
  new_text: "return sum(values) / len(values)",
});
/** An edit of the wrong file (an unresolved patch). */
export const README = call("edit_file", {
  path: "README.md",
  old_text: "A tiny calculator.",
  new_text: "A calculator.",
});
export const SUBMIT = call("submit_patch", {});

/** The right localization of calc's bug, with its five-field finding. */
export const GOOD_LOCALIZATION = {
  locations: [{ path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit", symbol: "average" }],
  finding: {
    locationExplanation: "average is the mean the issue reports.",
    rootCause: "It divides by len(values) - 1.",
    solutionIdea: "Divide by len(values).",
    dependencies: "calc/cli.py prints it.",
    testingImpact: "tests/test_ops.py.",
  },
};
/** The localizer submitting it. */
export const LOCATED = call("submit_localization", GOOD_LOCALIZATION);
