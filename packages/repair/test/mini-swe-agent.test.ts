import { describe, expect, it } from "vitest";
import { editsFiles } from "../src/mini-swe-agent/mini-totals.js";
import { miniExit } from "../src/mini-swe-agent/run-mini.js";

describe("editsFiles: a shell command that writes a repository file, as far as its text shows", () => {
  it("counts in-place edits, patches, tee, here-documents and redirects into files", () => {
    for (const command of [
      "sed -i 's/a/b/' calc/ops.py",
      "sed -n 1p x && sed -E -i 's/a/b/' y.py",
      "perl -pi -e 's/a/b/' x.py",
      "patch -p1 < fix.diff",
      "git apply fix.diff",
      "echo x | tee calc/ops.py",
      "cat > calc/new.py <<'EOF'\nprint(1)\nEOF",
      "printf 'x' >> notes.md",
      "python -c \"open('calc/ops.py', 'w').write('x')\"",
      "python - <<'EOF'\nfrom pathlib import Path\nPath('a.py').write_text('x')\nEOF",
    ])
      expect(editsFiles(command), command).toBe(true);
  });

  it("does not count reading, searching, redirects to /dev/null or /tmp, stderr, or mini-swe-agent's own patch.txt", () => {
    for (const command of [
      "cat calc/ops.py",
      "grep -rn 'average' calc | head",
      "python -m pytest -q 2>&1 | tail -5",
      "ls > /dev/null",
      "python repro.py > /tmp/out.txt",
      "git diff -- calc/ops.py > patch.txt",
      "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt",
      "find . -name '*.py' 2>/dev/null",
      "test $a -gt 3 && echo yes",
    ])
      expect(editsFiles(command), command).toBe(false);
  });
});

describe("miniExit", () => {
  it("maps mini-swe-agent's exit statuses to loclab's exits", () => {
    expect(
      [
        "Submitted",
        "LimitsExceeded",
        "TimeExceeded",
        "killed",
        "RepeatedFormatError",
        "ContextWindowExceededError",
        "BadRequestError",
      ].map(miniExit),
    ).toEqual(["submitted", "step_limit", "time_limit", "time_limit", "format_error", "context_limit", "error"]);
  });
});
