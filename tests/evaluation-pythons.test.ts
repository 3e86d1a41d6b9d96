import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { connectDocker } from "@loclab/docker";
import {
  evaluatePredictions,
  findImage,
  instanceDirectory,
  localPythonBase,
  PINNED_STAGES_LABEL,
  PYTHON_BASES,
  readLocalPython,
  type EvaluationInstance,
  type InstanceOutcome,
} from "@loclab/evaluation";
import { commitFiles, fixtureGit } from "@loclab/fixtures";
import type { HarnessSpec } from "@loclab/grading";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The task's Python on a real Docker engine: one fixture repository under three specs that
// differ only in their Python. 3.11 and 3.9 have base images of their own (bookworm, bullseye);
// 3.7 has none here and gets 3.9 by the nearest-newer rule, which the image's labels, the
// outcome and the summary must say. Each instance's FAIL_TO_PASS test asserts the interpreter it
// runs on, so a gold patch resolves only on the Python the outcome names. The repository's one
// dependency is pinned to a version with different wheels per Python (markupsafe has C
// speedups built per ABI), so the builder's wheel must be the image's.
const REPO = "loclab-fixtures/versions";
const spec = (python: string): HarnessSpec => ({
  python,
  pip_packages: ["markupsafe==2.0.1", "pytest==8.3.3"],
  install: "python -m pip install -e .",
  test_cmd: "pytest -rA",
  parser: "pytest",
});
const SPECS = {
  [REPO]: {
    py311: spec("3.11"),
    py39: spec("3.9"),
    py37: spec("3.7"),
    // An environment that cannot be built (no such package on the index).
    broken: { ...spec("3.7"), pip_packages: ["loclab-no-such-package-anywhere==1.0"] },
  },
};

const BASE_FILES = {
  "setup.py": 'from setuptools import setup\n\nsetup(name="versions", version="1.0", packages=["versions"])\n',
  "versions/__init__.py": "def minor():\n    import sys\n\n    return sys.version_info[1] + 1\n",
  "tests/test_versions.py": "import markupsafe\n\n\ndef test_escape():\n    assert markupsafe.escape('<') == '&lt;'\n",
};
const GOLD =
  "diff --git a/versions/__init__.py b/versions/__init__.py\n--- a/versions/__init__.py\n+++ b/versions/__init__.py\n@@ -1,4 +1,4 @@\n def minor():\n     import sys\n \n-    return sys.version_info[1] + 1\n+    return sys.version_info[1]\n";
const testPatch = (minor: number) =>
  `diff --git a/tests/test_versions.py b/tests/test_versions.py\n--- a/tests/test_versions.py\n+++ b/tests/test_versions.py\n@@ -3,3 +3,8 @@ import markupsafe\n \n def test_escape():\n     assert markupsafe.escape('<') == '&lt;'\n+\n+\n+def test_minor():\n+    from versions import minor\n+    assert minor() == ${minor}\n`;

// A complete export, as the harness's swebench-og files are (every package pinned, pytest's own
// dependencies included), with one pair of pins pip's metadata forbids.
const CONFLICTING_EXPORT = `name: testbed
channels:
  - defaults
dependencies:
  - _libgcc_mutex=0.1=main
  - python=3.11.2=h7a1cb2a_0
  - pip:
      - flask==2.0.0
      - werkzeug==1.0.1
      - markupsafe==2.0.1
      - pytest==8.3.3
      - iniconfig==2.0.0
      - packaging==24.1
      - pluggy==1.5.0
prefix: /opt/miniconda3/envs/testbed
`;

let work: string;
let repos: string;
let instances: EvaluationInstance[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "loclab-pythons-"));
  const source = join(work, "source");
  const baseCommit = await commitFiles(source, BASE_FILES);
  repos = join(work, "repos");
  fixtureGit(work, "clone", "-q", "--bare", source, join(repos, "loclab-fixtures__versions.git"));
  const instance = (version: string, minor: number): EvaluationInstance => ({
    instance_id: `loclab-fixtures__versions-${version}`,
    repo: REPO,
    version,
    base_commit: baseCommit,
    patch: GOLD,
    test_patch: testPatch(minor),
    FAIL_TO_PASS: ["tests/test_versions.py::test_minor"],
    PASS_TO_PASS: ["tests/test_versions.py::test_escape"],
  });
  // The 3.7 task's test expects the 9 of the Python it really gets.
  instances = [instance("py311", 11), instance("py39", 9), instance("py37", 9)];
});
afterAll(() => {
  if (work && !process.env.LOCLAB_KEEP_TEST_DIR) rmSync(work, { recursive: true, force: true });
});

describe("the task's Python", () => {
  it("3.11 and 3.9 from their own suites, 3.7 on 3.9 by the rule: the gold patch resolves on each, and the image, the outcome and the summary name the Python", async () => {
    const out = join(work, "out");
    const result = await evaluatePredictions({
      predictions: instances.map((instance) => ({
        instance_id: instance.instance_id,
        model_name_or_path: "gold",
        model_patch: instance.patch,
      })),
      instances,
      runId: "pythons",
      out,
      images: "local",
      repos,
      specs: SPECS,
      cacheDir: false,
      minFreeBytes: 2 ** 30,
    });
    const byId = new Map(result.outcomes.map((outcome) => [outcome.instance_id, outcome]));
    const outcome = (version: string) => byId.get(`loclab-fixtures__versions-${version}`) as InstanceOutcome;
    expect(
      [...result.outcomes]
        .sort(
          (a, b) =>
            instances.findIndex((i) => i.instance_id === a.instance_id) -
            instances.findIndex((i) => i.instance_id === b.instance_id),
        )
        .map((entry) => [entry.instance_id, entry.status, entry.infra_failure_detail]),
    ).toEqual(instances.map((instance) => [instance.instance_id, "resolved", undefined]));
    expect(outcome("py311").python).toMatchObject({ requested: "3.11", rule: "exact" });
    expect(outcome("py311").python?.actual).toMatch(/^3\.11\.\d+$/);
    expect(outcome("py39").python).toMatchObject({ requested: "3.9", rule: "exact" });
    expect(outcome("py39").python?.actual).toMatch(/^3\.9\.\d+$/);
    expect(outcome("py37").python).toMatchObject({ requested: "3.7", rule: "nearest-newer" });
    expect(outcome("py37").python?.actual).toMatch(/^3\.9\.\d+$/);
    // One base image per suite: the 3.9 and the 3.7 tasks share bullseye's.
    expect(result.summary.python_substituted_ids).toEqual(["loclab-fixtures__versions-py37"]);
    const py39 = outcome("py39").python!.actual;
    expect(result.summary.pythons).toEqual({
      [`${outcome("py311").python!.actual} (exact)`]: 1,
      [`${py39} (exact)`]: 1,
      [`${py39} for 3.7 (nearest-newer)`]: 1,
    });
    // The written outcome and summary say the same as the returned ones.
    const written = JSON.parse(
      readFileSync(
        join(instanceDirectory(out, "pythons", "gold", "loclab-fixtures__versions-py37"), "outcome.json"),
        "utf8",
      ),
    );
    expect(written.python).toEqual(outcome("py37").python);
    expect(JSON.parse(readFileSync(result.summaryPath, "utf8")).python_substituted_ids).toEqual([
      "loclab-fixtures__versions-py37",
    ]);
    // The instance image's labels, as `docker inspect` shows them.
    const { docker } = await connectDocker({});
    const image = await findImage(docker, outcome("py37").image!.name);
    expect(image?.labels).toMatchObject({
      "loclab.requested-python": "3.7",
      "loclab.python": py39,
      "loclab.python-rule": "nearest-newer",
      "loclab.suite": "bullseye",
    });
    // markupsafe's compiled speedups in the 3.9 image are the cp39 build.
    let listing = "";
    const output = new PassThrough();
    output.on("data", (chunk: Buffer) => {
      listing += chunk.toString("utf8");
    });
    await docker.run(
      outcome("py39").image!.name,
      ["python", "-c", "import markupsafe._speedups as s; print(s.__file__)"],
      output,
      { HostConfig: { NetworkMode: "none", AutoRemove: true } },
    );
    expect(listing).toMatch(/_speedups\.cpython-39-x86_64-linux-gnu\.so/);
  });

  // One instance's gold patch on local images, its outcome.
  const goldOutcome = async (
    instance: EvaluationInstance,
    runId: string,
    options: Pick<Parameters<typeof evaluatePredictions>[0], "specs" | "pythonBases" | "harnessEnvironments">,
  ) =>
    (
      await evaluatePredictions({
        predictions: [{ instance_id: instance.instance_id, model_name_or_path: "gold", model_patch: instance.patch }],
        instances: [instance],
        runId,
        out: join(work, "out"),
        images: "local",
        repos,
        cacheDir: false,
        minFreeBytes: 2 ** 30,
        ...options,
      })
    ).outcomes[0]!;

  // A harness's cached environment (a `conda env export`, complete) whose pins pip's own
  // metadata rejects, as conda-forge's cf-units and the antlr runtime in xarray's exports:
  // flask 2.0.0 asks pip for Werkzeug>=2.0, the export pins 1.0.1. Conda chose the versions;
  // loclab installs them as pinned rather than failing the build.
  it("a cached environment whose pins pip's resolver rejects is installed as pinned: the pins kept, the stage labelled, the gold patch resolves", async () => {
    const environments = join(work, "swebench-og");
    const folder = join(environments, "loclab-fixtures__versions", "7");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "environment.yml"), CONFLICTING_EXPORT);
    const instance = { ...instances[0]!, instance_id: "loclab-fixtures__versions-7" };
    const outcome = await goldOutcome(instance, "pythons-export", { specs: SPECS, harnessEnvironments: environments });
    expect([outcome.status, outcome.infra_failure_detail]).toEqual(["resolved", undefined]);
    const { docker } = await connectDocker({});
    const image = await findImage(docker, outcome.image!.name);
    expect(image?.labels[PINNED_STAGES_LABEL]).toBe(`${join(folder, "environment.yml")} (pip)`);
    let versions = "";
    const output = new PassThrough();
    output.on("data", (chunk: Buffer) => {
      versions += chunk.toString("utf8");
    });
    await docker.run(
      outcome.image!.name,
      ["python", "-c", "from importlib.metadata import version as v; print(v('flask'), v('werkzeug'))"],
      output,
      { HostConfig: { NetworkMode: "none", AutoRemove: true } },
    );
    expect(versions.trim()).toBe("2.0.0 1.0.1");
  });

  // A local CPython as a base (--python-prefix): the host's own python3 when it is an installed
  // prefix of its own (pyenv's here), not Debian's /usr, which cannot be copied as one.
  const hostPrefix = execFileSync("python3", ["-c", "import sys; print(sys.base_prefix)"], { encoding: "utf8" }).trim();
  it.skipIf(hostPrefix.startsWith("/usr"))(
    `a local CPython (${hostPrefix}) is the base for its version: exact, labelled, pytest on PATH, the gold patch resolves`,
    async () => {
      const local = readLocalPython(hostPrefix);
      const [major, minor] = local.version.split(".").map(Number) as [number, number];
      const instance = {
        ...instances[0]!,
        instance_id: "loclab-fixtures__versions-local",
        version: "local",
        test_patch: testPatch(minor),
      };
      const outcome = await goldOutcome(instance, "pythons-local", {
        specs: { [REPO]: { local: spec(`${major}.${minor}`) } },
        pythonBases: [localPythonBase(local), ...PYTHON_BASES],
      });
      expect([outcome.status, outcome.infra_failure_detail]).toEqual(["resolved", undefined]);
      expect(outcome.python).toEqual({ requested: `${major}.${minor}`, actual: local.version, rule: "exact" });
      const { docker } = await connectDocker({});
      const image = await findImage(docker, outcome.image!.name);
      expect(image?.labels).toMatchObject({
        "loclab.python": local.version,
        "loclab.python-source": `local ${hostPrefix}`,
        "loclab.suite": "bookworm",
      });
    },
  );

  it("an image that fails to build still names the Python it was for in the outcome", async () => {
    const broken = { ...instances[2]!, instance_id: "loclab-fixtures__versions-broken", version: "broken" };
    const outcome = await goldOutcome(broken, "pythons-broken", { specs: SPECS });
    expect([outcome.status, outcome.infra_failure_reason]).toEqual(["infra-failure", "image-build-failed"]);
    expect(outcome.infra_failure_detail).toMatch(/loclab-no-such-package-anywhere/);
    expect(outcome.python).toMatchObject({ requested: "3.7", rule: "nearest-newer" });
    expect(outcome.python?.actual).toMatch(/^3\.9\.\d+$/);
  });
});
