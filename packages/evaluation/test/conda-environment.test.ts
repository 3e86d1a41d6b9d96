import { describe, expect, it } from "vitest";
import { harnessSpec } from "@loclab/grading";
import {
  CondaEnvironmentError,
  EnvironmentUnsupportedError,
  parseMatchSpec,
  planEnvironment,
  translateCondaEnvironment,
  translateCondaPackages,
} from "../src/index.js";

// Written for this test in the two shapes the harness meets: a hand-kept environment.yml (as
// xarray's ci/requirements/environment.yml: names, a few pins, a pip section) and a
// `conda env export` (as the harness's swebench-og files: every entry name=version=build).
const HAND_WRITTEN = `name: xarray-tests
channels:
  - conda-forge
  - nodefaults
dependencies:
  - python=3.10
  - boto3
  - cdms2
  - hdf5
  - iris
  - matplotlib-base
  - netcdf4>=1.5
  - numpy=1.23
  - conda-forge::pint
  - pip
  - pandas 1.5.*
  - pip:
    - numbagg
    - types-pkg_resources==0.1.3
    - -e ../..
`;

const EXPORTED = `name: testbed
channels:
  - defaults
  - conda-forge
dependencies:
  - _libgcc_mutex=0.1=main
  - libgcc-ng=11.2.0=h1234567_1
  - openssl=3.0.15=h5eee18b_0
  - pip=24.2=py39h06a4308_0
  - python=3.9.20=he870216_1
  - mpmath=1.3.0=py39h06a4308_0
  - flake8=7.1.1=pyhd8ed1ab_0
  - setuptools=75.1.0=py39h06a4308_0
  - pip:
      - attrs==23.1.0
      - pytest==7.4.0
prefix: /opt/miniconda3/envs/testbed
`;

describe("conda match specs as pip sees them", () => {
  it("fuzzy `=`, exact exports, comparison operators, spaced versions, channels", () => {
    expect(parseMatchSpec("numpy")).toEqual({ name: "numpy", specifier: "" });
    expect(parseMatchSpec("numpy=1.23")).toMatchObject({ specifier: "==1.23.*" });
    expect(parseMatchSpec("numpy=1.23.*")).toMatchObject({ specifier: "==1.23.*" });
    expect(parseMatchSpec("mpmath=1.3.0=py39h06a4308_0")).toEqual({
      name: "mpmath",
      specifier: "==1.3.0",
      version: "1.3.0",
      build: "py39h06a4308_0",
    });
    expect(parseMatchSpec("netcdf4 >= 1.5, <2")).toMatchObject({ name: "netcdf4", specifier: ">=1.5,<2" });
    expect(parseMatchSpec("pandas 1.5.*")).toMatchObject({ specifier: "==1.5.*" });
    expect(parseMatchSpec("conda-forge::pint")).toEqual({ name: "pint", specifier: "" });
    expect(parseMatchSpec("numpy[version='>=1.2']")).toBeUndefined();
  });
});

describe("translateCondaEnvironment", () => {
  it("a hand-kept file: renamed, dropped with reasons, assumed names listed; the pip section cleaned as the harness does", () => {
    const result = translateCondaEnvironment(HAND_WRITTEN, "ci/requirements/environment.yml@abc", [
      ["types-pkg_resources", "types-setuptools"],
    ]);
    expect(result.requirements).toEqual([
      "boto3",
      "scitools-iris",
      "matplotlib",
      "netcdf4>=1.5",
      "numpy==1.23.*",
      "pint",
      "pandas==1.5.*",
    ]);
    expect(result.pip).toEqual(["numbagg", "types-setuptools"]);
    expect(result.python).toBe("3.10");
    expect(result.renamed).toEqual([
      { conda: "iris", pip: "scitools-iris" },
      { conda: "matplotlib-base", pip: "matplotlib" },
    ]);
    expect(result.dropped.map((entry) => entry.entry)).toEqual(["python=3.10", "cdms2", "hdf5", "pip", "-e ../.."]);
    expect(result.dropped.find((entry) => entry.entry === "cdms2")?.reason).toMatch(/not on the Python package index/);
    expect(result.assumed).toEqual(["boto3", "netcdf4", "numpy", "pint", "pandas"]);
  });

  it("an export: libraries dropped by their build (no Python tag), Python packages pinned exactly, pip section as written", () => {
    const result = translateCondaEnvironment(EXPORTED, "swebench-og/sympy__sympy/20590/environment.yml");
    expect(result.requirements).toEqual(["mpmath==1.3.0", "flake8==7.1.1", "setuptools==75.1.0"]);
    expect(result.pip).toEqual(["attrs==23.1.0", "pytest==7.4.0"]);
    expect(result.python).toBe("3.9.20");
    expect(result.assumed).toEqual([]);
    expect(result.dropped.map((entry) => entry.entry)).toEqual([
      "_libgcc_mutex=0.1=main",
      "libgcc-ng=11.2.0=h1234567_1",
      "openssl=3.0.15=h5eee18b_0",
      "pip=24.2=py39h06a4308_0",
      "python=3.9.20=he870216_1",
    ]);
    expect(result.dropped[0]!.reason).toBe("a conda library (build main has no Python tag)");
  });

  it("a conda build that is a stub on newer Pythons keeps its dependents' marker (backports.zoneinfo in xarray's 3.10 exports)", () => {
    const text = EXPORTED.replace("python=3.9.20=he870216_1", "python=3.10.15=h4a871b0_1_cpython").replace(
      "  - mpmath=1.3.0=py39h06a4308_0\n",
      "  - mpmath=1.3.0=py39h06a4308_0\n  - backports.zoneinfo=0.2.1=py310hff52083_9\n",
    );
    const result = translateCondaEnvironment(text, "swebench-og/pydata__xarray/4094/environment.yml");
    expect(result.requirements).toEqual([
      "mpmath==1.3.0",
      'backports.zoneinfo==0.2.1; python_version < "3.9"',
      "flake8==7.1.1",
      "setuptools==75.1.0",
    ]);
  });

  it("an export with an empty pip: section (null in YAML) has no pip stage", () => {
    const result = translateCondaEnvironment(
      "dependencies:\n  - pytest=7.4.4=py39h06a4308_0\n  - zlib=1.2.13=h5eee18b_1\n  - pip:\nprefix: /opt/x\n",
      "og/psf__requests/2317/environment.yml",
    );
    expect(result.requirements).toEqual(["pytest==7.4.4"]);
    expect(result.pip).toEqual([]);
  });

  it("bad files are errors naming the file and the entry", () => {
    expect(() => translateCondaEnvironment("dependencies:\n  - pip: 3\n", "env.yml")).toThrow(
      /env.yml: dependency 1: pip: is not a list/,
    );
    expect(() => translateCondaEnvironment("name: x\n", "env.yml")).toThrow(/env.yml: no `dependencies:` list/);
    expect(() => translateCondaEnvironment("dependencies: [\n", "env.yml")).toThrow(CondaEnvironmentError);
    expect(() => translateCondaEnvironment("dependencies:\n  - numpy[version='>=1']\n", "env.yml")).toThrow(
      /env.yml: dependency "numpy\[version='>=1'\]" is not a conda match spec/,
    );
  });

  it("a spec's package list: quotes dropped, conda's fuzzy pins kept fuzzy", () => {
    const result = translateCondaPackages(
      ["'numpy==1.19.2'", "scipy", "'pandas<2.0.0'", "matplotlib-base=3.5"],
      "spec.packages",
    );
    expect(result.requirements).toEqual(["numpy==1.19.2", "scipy", "pandas<2.0.0", "matplotlib==3.5.*"]);
  });
});

describe("planEnvironment with conda files", () => {
  const files = (entries: Record<string, string>) => (path: string) => entries[path];

  it("xarray's spec: the environment file's two stages, then pip_packages, then the build requirements", () => {
    const spec = harnessSpec("pydata/xarray", "2022.06");
    const plan = planEnvironment({
      repo: "pydata/xarray",
      version: "2022.06",
      spec,
      environmentCommit: "abc",
      readFile: files({
        "ci/requirements/environment.yml": HAND_WRITTEN,
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=42", "setuptools-scm[toml]>=3.4"]\n',
      }),
    });
    expect(plan.sources).toEqual([
      "ci/requirements/environment.yml@abc (conda)",
      "ci/requirements/environment.yml@abc (pip)",
      "spec.pip_packages",
      "build-system",
    ]);
    expect(plan.stages[1]).toEqual(["numbagg", "types-setuptools"]);
    expect(plan.stages[2]).toEqual(spec.pip_packages);
    expect(plan.requestedPython).toBe(spec.python);
    expect(plan.conda?.renamed).toHaveLength(2);
    // A hand-kept file pins little: pip resolves every stage.
    expect(plan.exportStages).toEqual([]);
  });

  it("no environment file at the harness's paths is unsupported, naming the paths", () => {
    expect(() =>
      planEnvironment({
        repo: "pydata/xarray",
        version: "2022.06",
        spec: harnessSpec("pydata/xarray", "2022.06"),
        environmentCommit: "abc",
        readFile: files({}),
      }),
    ).toThrow(EnvironmentUnsupportedError);
  });

  it("a cached environment replaces the spec's packages and pip_packages, and its Python is the request", () => {
    const plan = planEnvironment({
      repo: "sympy/sympy",
      version: "1.7",
      spec: harnessSpec("sympy/sympy", "1.7"),
      environmentCommit: "abc",
      readFile: files({}),
      cachedEnvironment: { text: EXPORTED, source: "og/sympy__sympy/20590/environment.yml" },
    });
    expect(plan.stages).toEqual([
      ["mpmath==1.3.0", "flake8==7.1.1", "setuptools==75.1.0"],
      ["attrs==23.1.0", "pytest==7.4.0"],
    ]);
    expect(plan.requestedPython).toBe("3.9");
    // Both stages pin a whole environment: pip may install them without resolving.
    expect(plan.exportStages).toEqual([0, 1]);
  });
});
