#!/usr/bin/env python3
"""Writes src/harness-specs.generated.json from the official SWE-bench harness (the `swebench`
package from the Python package index), so that loclab's test commands and environments are the
harness's own, version for version. Run it when the harness version changes:

    python3 -m venv /tmp/swebench-4.1.0 && /tmp/swebench-4.1.0/bin/pip install swebench==4.1.0
    /tmp/swebench-4.1.0/bin/python packages/grading/scripts/generate-harness-specs.py

Only data is taken (the specs table, the requirements paths, the yanked-package replacements);
loclab's code that uses it is its own.
"""
import json
import os
import sys
from importlib.metadata import version

import swebench.harness.constants as C
import swebench.harness.constants.python as P
import swebench.harness.test_spec.python as T

REPOS = [
    "astropy/astropy", "django/django", "matplotlib/matplotlib", "mwaskom/seaborn",
    "pallets/flask", "psf/requests", "pydata/xarray", "pylint-dev/pylint",
    "pytest-dev/pytest", "scikit-learn/scikit-learn", "sphinx-doc/sphinx", "sympy/sympy",
]
KEYS = ["python", "packages", "pip_packages", "pre_install", "install", "eval_commands",
        "test_cmd", "no_use_env", "nano_cpus", "execute_test_as_nonroot"]

specs = {
    repo: {v: {k: s[k] for k in KEYS if k in s} for v, s in C.MAP_REPO_VERSION_TO_SPECS[repo].items()}
    for repo in REPOS
}
data = {
    "harness": {"package": "swebench", "version": version("swebench")},
    "specs": specs,
    "requirementsPaths": {r: P.MAP_REPO_TO_REQS_PATHS[r] for r in REPOS if r in P.MAP_REPO_TO_REQS_PATHS},
    "environmentPaths": {r: P.MAP_REPO_TO_ENV_YML_PATHS[r] for r in REPOS if r in P.MAP_REPO_TO_ENV_YML_PATHS},
    "replaceRequirementPackages": [list(pair) for pair in T.REPLACE_REQ_PACKAGES],
}
here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "src", "harness-specs.generated.json")
with open(out, "w") as f:
    # Plain JSON (src/harness-specs.ts imports it); where it came from is in .gitattributes and here.
    f.write(json.dumps(data, indent=1, ensure_ascii=False))
    f.write("\n")
print(f"wrote {out}: {sum(len(v) for v in specs.values())} repository × version specs")
