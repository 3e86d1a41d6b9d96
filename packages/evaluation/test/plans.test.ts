import { describe, expect, it } from "vitest";
import { harnessSpec } from "@loclab/grading";
import {
  buildRequirements,
  effectiveConstraints,
  installTarget,
  planEnvironment,
  prebuiltImageName,
  pretendVersion,
  setupRepoScript,
} from "../src/index.js";

describe("environment plans, as the harness's env scripts install", () => {
  it("flask 2.3: the requirements file, then pip_packages in a second install, then the build requirements; a pin of setuptools drops the default constraint", () => {
    const files: Record<string, string> = {
      "requirements/dev.txt": "-r tests.txt\nsetuptools==70.0.0\nMarkupSafe==2.1.1\n",
      "requirements/tests.txt": "pytest==7.3.0\n",
      "pyproject.toml":
        '[project]\nname = "Flask"\n\n[build-system]\nrequires = ["flit_core<4"]\nbuild-backend = "flit_core.buildapi"\n',
    };
    const spec = harnessSpec("pallets/flask", "2.3");
    const plan = planEnvironment({
      repo: "pallets/flask",
      version: "2.3",
      spec,
      environmentCommit: "abc",
      readFile: (path) => files[path],
    });
    expect(plan.stages).toEqual([
      ["pytest==7.3.0", "setuptools==70.0.0", "MarkupSafe==2.1.1"],
      spec.pip_packages,
      ["flit_core<4"],
    ]);
    expect(plan.sources).toEqual(["requirements/dev.txt@abc", "spec.pip_packages", "build-system"]);
    expect(effectiveConstraints(plan, ["setuptools<70"])).toEqual([]);
    expect(effectiveConstraints({ ...plan, requirements: ["pytest", "setuptools>=45.0"] }, ["setuptools<70"])).toEqual([
      "setuptools<70",
    ]);
  });

  it("a conda package list becomes pip requirements; a missing environment.yml is unsupported, named with the paths looked at", () => {
    const sympy = planEnvironment({
      repo: "sympy/sympy",
      version: "1.1",
      spec: harnessSpec("sympy/sympy", "1.1"),
      environmentCommit: "c",
      readFile: () => undefined,
    });
    expect(sympy.stages).toEqual([
      ["mpmath", "flake8"],
      ["mpmath==1.3.0", "flake8-comprehensions"],
    ]);
    expect(() =>
      planEnvironment({
        repo: "pydata/xarray",
        version: "0.12",
        spec: harnessSpec("pydata/xarray", "0.12"),
        environmentCommit: "c",
        readFile: () => undefined,
      }),
    ).toThrow(
      /pydata\/xarray 0.12: no conda environment file at ci\/requirements\/environment.yml or environment.yml in c/,
    );
  });

  it("the install's target, setuptools-scm's version, pyproject's build requirements, the prebuilt image name", () => {
    expect(
      [
        "python -m pip install -e .",
        "python -m pip install -e .[test] --verbose",
        "python -m pip install -e '.[dev]'",
        "python setup.py build; python setup.py install",
        undefined,
      ].map(installTarget),
    ).toEqual([".", ".[test]", ".[dev]", ".", undefined]);
    expect(["v2.10.0", "sympy-1.1", "4.4.0", undefined].map(pretendVersion)).toEqual([
      "2.10.0",
      "1.1",
      "4.4.0",
      undefined,
    ]);
    expect(
      buildRequirements(
        "[tool.x]\na = 1\n[build-system]\nrequires = [\n  'setuptools>=45',\n  \"wheel\",\n]\n[project]\n",
      ),
    ).toEqual(["setuptools>=45", "wheel"]);
    // pytest 7.0's list: a comment, and an item with brackets of its own.
    expect(
      buildRequirements(
        '[build-system]\nrequires = [\n  # sync with setup.py until we discard non-pep-517/518\n  "setuptools>=45.0",\n  "setuptools-scm[toml]>=6.2.3",\n  "wheel",\n]\nbuild-backend = "setuptools.build_meta"\n',
      ),
    ).toEqual(["setuptools>=45.0", "setuptools-scm[toml]>=6.2.3", "wheel"]);
    expect(buildRequirements("[build-system\nrequires = [")).toEqual([]);
    expect(prebuiltImageName("django__django-11099")).toBe("swebench/sweb.eval.x86_64.django_1776_django-11099:latest");
    expect(
      setupRepoScript({
        python: "3.9",
        test_cmd: "pytest",
        pre_install: ["apt-get install -y graphviz", "sed -i 's/pytest/pytest -rA/' tox.ini"],
        install: "python -m pip install -e .",
      }),
    ).toEqual({
      script:
        "#!/bin/bash\nset -euxo pipefail\ncd /testbed\n: 'skipped (no network in the build): apt-get install -y graphviz'\nsed -i 's/pytest/pytest -rA/' tox.ini\npython -m pip install -e .\ngit config --global user.email setup@swebench.config\ngit config --global user.name SWE-bench\ngit commit --allow-empty -am SWE-bench\n",
      skipped: ["apt-get install -y graphviz"],
    });
  });
});
