import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadBenchmark } from "@loclab/datasets";
import {
  CONDA_ACTIVATE,
  evalScript,
  harnessSpec,
  modifiedFiles,
  newFiles,
  requirementsText,
  testCommand,
  testDirectives,
} from "@loclab/grading";
import { describe, expect, it } from "vitest";

// The official harness's eval.sh for all 300 SWE-bench Lite instances (swebench 4.1.0,
// packages/grading/fixtures/generate-eval-scripts.py; sha256 of each script, the test patch
// inside being benchmark data): loclab's script, with the harness's conda activation and without
// its exit-code line, must be the same bytes.
const reference = JSON.parse(
  readFileSync(new URL("../packages/grading/fixtures/eval-scripts.json", import.meta.url), "utf8"),
) as {
  harness: { version: string };
  scripts: Record<string, { sha256: string; skeleton?: string }>;
};

describe(`eval.sh equals the official harness's (swebench ${reference.harness.version}) on every Lite instance`, async () => {
  const { instances } = await loadBenchmark("lite");
  it("300 scripts, byte for byte", () => {
    const differ: string[] = [];
    for (const instance of instances) {
      const spec = harnessSpec(instance.repo, instance.version);
      const script = evalScript({
        repo: instance.repo,
        baseCommit: instance.base_commit,
        testPatch: instance.test_patch!,
        testCmd: testCommand(spec),
        activate: CONDA_ACTIVATE,
        ...(spec.eval_commands ? { evalCommands: spec.eval_commands } : {}),
        ...(spec.install ? { install: spec.install } : {}),
        recordExitCode: false,
        testReset: "checkout",
      });
      const expected = reference.scripts[instance.instance_id];
      if (!expected || createHash("sha256").update(script).digest("hex") !== expected.sha256)
        differ.push(instance.instance_id);
    }
    expect(Object.keys(reference.scripts)).toHaveLength(300);
    expect(differ).toEqual([]);
  });

  it("the recorded exit code sits after the test command and before the end marker", () => {
    const instance = instances.find((row) => row.instance_id === "django__django-11099")!;
    const spec = harnessSpec(instance.repo, instance.version);
    const script = evalScript({
      repo: instance.repo,
      baseCommit: instance.base_commit,
      testPatch: instance.test_patch!,
      testCmd: testCommand(spec),
      activate: ["source /opt/testbed/bin/activate"],
    });
    const lines = script.split("\n");
    const start = lines.indexOf(": '>>>>> Start Test Output'");
    expect(lines.slice(start + 1, start + 5)).toEqual([
      "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 auth_tests.test_validators",
      "LOCLAB_TEST_EXIT_CODE=$?",
      ": '>>>>> End Test Output'",
      'echo ">>>>> Test Exit Code: $LOCLAB_TEST_EXIT_CODE"',
    ]);
  });
});

// The harness since SWE-bench #539 (f7bbbb2, March 2026): modified test files checked out, new
// ones removed with `rm -f`, no bare `git checkout <base>` (which reset the whole tree when a test
// patch only adds files). Its description names sphinx-doc__sphinx-8595 (in Lite) as the case.
describe("the test-file reset of the harness since #539 (the default)", async () => {
  const { instances } = await loadBenchmark("lite");
  const scripts = (testReset: "separate" | "checkout") =>
    instances.map((instance) => {
      const spec = harnessSpec(instance.repo, instance.version);
      return evalScript({
        repo: instance.repo,
        baseCommit: instance.base_commit,
        testPatch: instance.test_patch!,
        testCmd: testCommand(spec),
        activate: CONDA_ACTIVATE,
        ...(spec.install ? { install: spec.install } : {}),
        testReset,
      });
    });

  it("sphinx-8595, whose test patch only adds files: `rm -f` of those files, before and after the tests, and no bare checkout", () => {
    const index = instances.findIndex((row) => row.instance_id === "sphinx-doc__sphinx-8595");
    const lines = scripts("separate")[index]!.split("\n");
    const base = instances[index]!.base_commit;
    expect(lines.filter((line) => line.startsWith("git checkout "))).toEqual([]);
    expect(lines.filter((line) => line.startsWith("rm -f "))).toEqual([
      "rm -f tests/roots/test-ext-autodoc/target/empty_all.py tests/test_ext_autodoc_automodule.py",
      "rm -f tests/roots/test-ext-autodoc/target/empty_all.py tests/test_ext_autodoc_automodule.py",
    ]);
    // swebench 4.1.0's script has the bare checkout instead.
    expect(scripts("checkout")[index]!.split("\n")).toContain(`git checkout ${base} `);
  });

  it("every other Lite script: the same bytes where the test patch adds no file, one `rm -f` more after each checkout where it does", () => {
    const separate = scripts("separate");
    const checkout = scripts("checkout");
    let withNew = 0;
    instances.forEach((instance, index) => {
      const created = newFiles(instance.test_patch!);
      if (created.length === 0) return expect(separate[index]).toBe(checkout[index]);
      withNew += 1;
      if (modifiedFiles(instance.test_patch!).length === 0) return;
      const reset = `git checkout ${instance.base_commit} ${modifiedFiles(instance.test_patch!).join(" ")}`;
      expect(separate[index]).toBe(checkout[index]!.replaceAll(`${reset}\n`, `${reset}\nrm -f ${created.join(" ")}\n`));
    });
    expect(withNew).toBeGreaterThan(1);
  });
});

describe("test directives and reset files", () => {
  it("django's module form; data files dropped; new files are not reset", () => {
    const patch = [
      "diff --git a/tests/auth_tests/test_validators.py b/tests/auth_tests/test_validators.py",
      "--- a/tests/auth_tests/test_validators.py",
      "+++ b/tests/auth_tests/test_validators.py",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "diff --git a/tests/auth_tests/data.json b/tests/auth_tests/data.json",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/tests/auth_tests/data.json",
      "@@ -0,0 +1 @@",
      "+{}",
      "",
    ].join("\n");
    expect(testDirectives("django/django", patch)).toEqual(["auth_tests.test_validators"]);
    expect(testDirectives("psf/requests", patch)).toEqual(["tests/auth_tests/test_validators.py"]);
    expect(modifiedFiles(patch)).toEqual(["tests/auth_tests/test_validators.py"]);
    expect(newFiles(patch)).toEqual(["tests/auth_tests/data.json"]);
  });

  it("requirements files as the harness reads them: -r inlined first, -e . and comments dropped, yanked packages replaced", () => {
    const files: Record<string, string> = {
      "requirements/dev.txt": "-r tests.txt\n# a comment\n-e .\nblack==22.1\ntypes-pkg_resources==0.1.3\n",
      "requirements/tests.txt": "pytest==7.0\n.[test]\n",
    };
    const { path, text } = requirementsText("pallets/flask", (file) => files[file]);
    expect(path).toBe("requirements/dev.txt");
    expect(text).toBe("pytest==7.0\n\nblack==22.1\ntypes-setuptools\n");
  });
});
