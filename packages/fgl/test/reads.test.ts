import { describe, expect, it } from "vitest";
import { editorReads, isEdit, searchReads, shellOutput, shellReads, shellWords, writesFiles } from "../src/index.js";

const ok = (output: string) => `<returncode>0</returncode>\n<output>\n${output}</output>`;
const lines = (read: { lines?: Map<number, string> }) => [...(read.lines ?? new Map())];

describe("shellReads (mini-swe-agent's bash)", () => {
  it("sed -n 'A,Bp' gives lines A… numbered from A, after cd and with the /testbed prefix", () => {
    const reads = shellReads("cd /testbed && sed -n '10,12p' django/db/models/query.py", ok("a\nb\nc\n"), 4);
    expect(reads).toEqual([
      {
        path: "django/db/models/query.py",
        startLine: 10,
        endLine: 12,
        lines: new Map([
          [10, "a"],
          [11, "b"],
          [12, "c"],
        ]),
        via: "sed -n",
        step: 4,
      },
    ]);
    // The output decides the end: a range past the file's end shows fewer lines.
    expect(shellReads("sed -n '5,500p' ./a/b.py", ok("x\ny\n"), 0)[0]).toMatchObject({
      path: "a/b.py",
      startLine: 5,
      endLine: 6,
    });
  });

  it("cat, cat -n, nl -ba and nl -ba | sed -n take the numbers from where they are", () => {
    expect(shellReads("cat a/b.py", ok("one\ntwo\n"), 1)[0]).toMatchObject({ startLine: 1, endLine: 2, via: "cat" });
    const numbered = shellReads("nl -ba a/b.py | sed -n '40,41p'", ok("    40\tforty\n    41\tforty-one\n"), 2)[0]!;
    expect(numbered).toMatchObject({ path: "a/b.py", startLine: 40, endLine: 41, via: "nl" });
    expect(lines(numbered)).toEqual([
      [40, "forty"],
      [41, "forty-one"],
    ]);
    expect(shellReads("cat -n a/b.py | sed -n '7,7p'", ok("     7\tseven\n"), 0)[0]).toMatchObject({
      startLine: 7,
      endLine: 7,
    });
  });

  it("head, tail -n N (lines from the end, resolved later), tail -n +K, awk NR ranges", () => {
    expect(shellReads("head -n 3 a/b.py", ok("1\n2\n3\n"), 0)[0]).toMatchObject({
      startLine: 1,
      endLine: 3,
      via: "head",
    });
    expect(shellReads("tail -n 2 a/b.py", ok("y\nz\n"), 0)[0]).toEqual({
      path: "a/b.py",
      fromEnd: 2,
      via: "tail",
      step: 0,
    });
    expect(shellReads("tail -n +9 a/b.py", ok("9\n10\n"), 0)[0]).toMatchObject({ startLine: 9, endLine: 10 });
    expect(shellReads("awk 'NR>=20 && NR<=21' a/b.py", ok("t\nu\n"), 0)[0]).toMatchObject({
      startLine: 20,
      endLine: 21,
      via: "awk",
    });
  });

  it("grep -n: one file gives N:text lines, several files path:N:text (context lines with -)", () => {
    const one = shellReads('grep -n "def f" a/b.py', ok("12:def f():\n30:def f2():\n"), 0);
    // Two hits are two reads: lines 13-29 were not shown.
    expect(one).toEqual([
      { path: "a/b.py", startLine: 12, endLine: 12, lines: new Map([[12, "def f():"]]), via: "grep -n", step: 0 },
      { path: "a/b.py", startLine: 30, endLine: 30, lines: new Map([[30, "def f2():"]]), via: "grep -n", step: 0 },
    ]);
    const many = shellReads(
      'grep -rn "x" django/',
      ok("django/a.py:3:x = 1\ndjango/a.py-4-y = 2\ndjango/b.py:9:x()\n"),
      0,
    );
    expect(many.map((r) => [r.path, r.startLine, r.endLine])).toEqual([
      ["django/a.py", 3, 4],
      ["django/b.py", 9, 9],
    ]);
    expect(
      shellReads('grep -n -A1 "x" a.py', ok("3:x\n4-y\n9:x\n10-z\n"), 0).map((r) => [r.startLine, r.endLine]),
    ).toEqual([
      [3, 4],
      [9, 10],
    ]);
    // grep without -n shows no line numbers: not a read of lines.
    expect(shellReads('grep -r "x" django/', ok("django/a.py:x = 1\n"), 0)).toEqual([]);
  });

  it("writes, here-documents, the too-long warning and paths outside the repository are no reads", () => {
    expect(shellReads("cat > a/b.py <<'EOF'\nx\nEOF", ok(""), 0)).toEqual([]);
    expect(shellReads("sed -i 's/a/b/' a/b.py && cat a/b.py", ok("b\n"), 0)).toEqual([]);
    expect(
      shellReads(
        "cat a/b.py",
        "<returncode>0</returncode>\n<warning>\nThe output of your last command was too long.\n</warning>",
        0,
      ),
    ).toEqual([]);
    expect(shellReads("cat /tmp/x.py", ok("x\n"), 0)).toEqual([]);
    expect(shellReads("cat a/*.py", ok("x\n"), 0)).toEqual([]);
    expect(writesFiles("python x.py 2>&1 | head -5")).toBe(false);
    expect(writesFiles("echo hi > out.txt")).toBe(true);
    expect(writesFiles("awk 'NR>=1 && NR<=2' a.py")).toBe(false);
  });

  it("a truncated output counts only its head's whole lines (the template's newline after the cut is not a line end)", () => {
    const observation =
      "<returncode>0</returncode>\n<warning>too long</warning><output_head>\nl1\nl2\nhalf a li\n</output_head>\n<elided_chars>\n99 characters elided\n</elided_chars>\n<output_tail>\nend\n</output_tail>";
    expect(shellOutput(observation)).toEqual({ text: "l1\nl2\n", complete: false });
    expect(shellReads("cat a/b.py", observation, 0)[0]).toMatchObject({ startLine: 1, endLine: 2 });
  });

  it("shellWords splits with quotes and escapes", () => {
    expect(shellWords(`sed -n '1,5p' "a b.py" c\\ d`)).toEqual(["sed", "-n", "1,5p", "a b.py", "c d"]);
  });
});

describe("editorReads (SWE-agent's windows) and searchReads (AutoCodeRover's results)", () => {
  const window =
    "[File: /django__django/django/contrib/auth/validators.py (25 lines total)]\n(8 more lines above)\n9:class ASCIIUsernameValidator(validators.RegexValidator):\n10:    regex = r'^[\\w.@+-]+$'\n(15 more lines below)";
  it("a window's numbered lines are the read; edit and create windows are not", () => {
    expect(editorReads("scroll_down", window, 3, "/django__django")).toEqual([
      {
        path: "django/contrib/auth/validators.py",
        startLine: 9,
        endLine: 10,
        lines: new Map([
          [9, "class ASCIIUsernameValidator(validators.RegexValidator):"],
          [10, "    regex = r'^[\\w.@+-]+$'"],
        ]),
        via: "scroll_down",
        step: 3,
      },
    ]);
    expect(editorReads("edit", window, 3, "/django__django")).toEqual([]);
    expect(
      editorReads(
        "search_file",
        'Found 1 matches for "regex" in /django__django/a/b.py:\nLine 10:    regex = 1\nEnd of matches',
        0,
        "/django__django",
      )[0],
    ).toMatchObject({ path: "a/b.py", startLine: 10, endLine: 10 });
  });

  it("a search result with code is a read of that file named by class and function; a file list is none", () => {
    const block =
      'Result of search_method_in_class("f", "C"):\nFound 1 methods.\nSearch result 1: <file>a/b.py</file> <class>C</class> <func>f</func> <code>def f(self):\n    return 1\n</code>\n';
    expect(searchReads("search_method_in_class", block, 2)).toEqual([
      { path: "a/b.py", symbol: "C.f", code: "def f(self):\n    return 1", via: "search_method_in_class", step: 2 },
    ]);
    expect(
      searchReads(
        "search_code",
        'Result of search_code("x"):\nThey appeared in the following files:\n<file>a/b.py</file> (22 matches)\n',
        0,
      ),
    ).toEqual([]);
  });
});

describe("isEdit: the cut", () => {
  it("editor edits count (even refused ones); a shell write counts only when it names a patched file", () => {
    expect(isEdit({ name: "edit", arguments: { command: "edit 10:10\nx\nend_of_edit" } }, [])).toBe(true);
    expect(isEdit({ name: "bash", arguments: { command: "sed -i 's/a/b/' django/http.py" } }, ["django/http.py"])).toBe(
      true,
    );
    expect(
      isEdit({ name: "bash", arguments: { command: "cd /testbed && sed -i 's/a/b/' http.py" } }, [
        "django/utils/http.py",
      ]),
    ).toBe(true);
    expect(
      isEdit({ name: "bash", arguments: { command: "cat <<'EOF' > reproduce.py\nprint(1)\nEOF" } }, [
        "django/utils/http.py",
      ]),
    ).toBe(false);
    expect(
      isEdit(
        {
          name: "bash",
          arguments: { command: "python - <<'EOF'\np='django/utils/http.py'\nopen(p,'w').write(s)\nEOF" },
        },
        ["django/utils/http.py"],
      ),
    ).toBe(true);
    expect(isEdit({ name: "bash", arguments: { command: "cat django/utils/http.py" } }, ["django/utils/http.py"])).toBe(
      false,
    );
    expect(isEdit({ name: "str_replace_editor", arguments: { command: "view /testbed/a.py" } }, [])).toBe(false);
  });
});
