import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * A small Python package with a planted bug: `average` in calc/ops.py (lines 8–12) divides by
 * `len(values) - 1`. The issue below reports its symptom without naming the file.
 */
export const FIXTURE_FILES: Record<string, string> = {
  "calc/__init__.py": '"""A tiny calculator."""\nfrom calc.ops import add, average\n\n__all__ = ["add", "average"]\n',
  "calc/ops.py": [
    '"""Arithmetic helpers."""',
    "",
    "",
    "def add(a, b):",
    "    return a + b",
    "",
    "",
    "def average(values):",
    '    """Return the arithmetic mean of values."""',
    "    if not values:",
    '        raise ValueError("average of an empty sequence")',
    "    return sum(values) / (len(values) - 1)",
    "",
  ].join("\n"),
  "calc/cli.py": 'import sys\n\nfrom calc.ops import average\n\n\ndef main():\n    print(average([float(x) for x in sys.argv[1:]]))\n',
  "tests/test_ops.py": "from calc.ops import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
  "README.md": "# calc\n\nA tiny calculator.\n",
};

export const FIXTURE_ISSUE = {
  instance_id: "calc__calc-1",
  problem_statement: "average([2, 4]) returns 6.0 instead of 3.0. The mean of a list is wrong for every input.",
};

/** The repository under `<temp>/repo`, and `<temp>/runs` for trajectories; `dispose` removes both. */
export async function makeFixtureRepo(): Promise<{ root: string; runs: string; dispose(): Promise<void> }> {
  const temp = await mkdtemp(join(tmpdir(), "loclab-agent-"));
  const root = join(temp, "repo");
  for (const [path, text] of Object.entries(FIXTURE_FILES)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text, "utf8");
  }
  return { root, runs: join(temp, "runs"), dispose: () => rm(temp, { recursive: true, force: true }) };
}

/** The right answer for the fixture: the five-field finding and the span of `average`. */
export const FIXTURE_FINDING = {
  locationExplanation: "average computes the mean the issue reports as wrong.",
  rootCause: "It divides the sum by len(values) - 1 instead of len(values).",
  solutionIdea: "Divide by len(values).",
  dependencies: "calc/cli.py prints average's result; calc/__init__.py re-exports it.",
  testingImpact: "Add a test of average to tests/test_ops.py.",
};
export const FIXTURE_SPAN = { path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit", symbol: "average" };
