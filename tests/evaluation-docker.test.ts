import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectDocker, DockerUnavailableError } from "@loclab/docker";
import {
  calibrate,
  evaluatePredictions,
  findImage,
  imageInventory,
  prebuiltImageName,
  pruneImages,
  instanceDirectory,
  type EvaluationInstance,
  type SwePrediction,
} from "@loclab/evaluation";
import { commitFiles, fixtureGit } from "@loclab/fixtures";
import type { HarnessSpec } from "@loclab/grading";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Evaluation end to end on a real Docker engine (Debian's dockerd, started by `npm test` with
// no bridge and no iptables on its own socket): a fixture repository in real git, made a bare
// mirror; images built here (debootstrap base, an env image whose one wheel is fetched by the
// host's pip, the instance image from the mirror); containers with no network. The test suite
// of the fixture has a bug the gold patch fixes.
const REPO = "loclab-fixtures/calc";
const SPEC: HarnessSpec = {
  python: "3.11",
  pip_packages: ["six==1.16.0", "pytest==8.3.3"],
  install: "python -m pip install -e .",
  test_cmd: "pytest -rA",
  parser: "pytest",
};
const SPECS = { [REPO]: { "1.0": SPEC } };

const BASE_FILES = {
  "pyproject.toml":
    '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "calc"\nversion = "1.0"\n\n[tool.setuptools]\npackages = ["calc"]\n',
  "calc/__init__.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
  "tests/test_calc.py":
    "import six\n\nfrom calc import sub\n\n\ndef test_sub():\n    assert six.PY3 and sub(5, 3) == 2\n",
};
const GOLD =
  "diff --git a/calc/__init__.py b/calc/__init__.py\n--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -1,5 +1,5 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def sub(a, b):\n";
const BAD =
  "diff --git a/calc/__init__.py b/calc/__init__.py\n--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -1,2 +1,2 @@\n def multiply(a, b):\n-    return a / b\n+    return a * b\n";
const testPatch = (body: string) =>
  `diff --git a/tests/test_calc.py b/tests/test_calc.py\n--- a/tests/test_calc.py\n+++ b/tests/test_calc.py\n@@ -6,2 +6,${body.split("\n").length + 3} @@\n def test_sub():\n     assert six.PY3 and sub(5, 3) == 2\n+\n${body
    .split("\n")
    .map((line) => `+${line}`)
    .join("\n")}\n`;

let work: string;
let repos: string;
let baseCommit: string;
let instances: EvaluationInstance[];
const cacheDir = () => join(work, "cache");

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "loclab-eval-"));
  const source = join(work, "source");
  baseCommit = await commitFiles(source, BASE_FILES);
  repos = join(work, "repos");
  fixtureGit(work, "clone", "-q", "--bare", source, join(repos, "loclab-fixtures__calc.git"));
  const instance = (id: string, body: string, f2p: string[]): EvaluationInstance => ({
    instance_id: id,
    repo: REPO,
    version: "1.0",
    base_commit: baseCommit,
    patch: GOLD,
    test_patch: testPatch(body),
    FAIL_TO_PASS: f2p,
    PASS_TO_PASS: ["tests/test_calc.py::test_sub"],
  });
  instances = [
    instance("loclab-fixtures__calc-1", "def test_add():\n    from calc import add\n    assert add(2, 3) == 5", [
      "tests/test_calc.py::test_add",
    ]),
    instance("loclab-fixtures__calc-2", "def test_hangs():\n    import time\n    time.sleep(3600)", [
      "tests/test_calc.py::test_hangs",
    ]),
    instance("loclab-fixtures__calc-3", "def test_slow():\n    import time\n    time.sleep(120)", [
      "tests/test_calc.py::test_slow",
    ]),
  ];
});
afterAll(() => {
  if (work && !process.env.LOCLAB_KEEP_TEST_DIR) rmSync(work, { recursive: true, force: true });
});

const predict = (id: string, patch: string | null, model = "fixture-model"): SwePrediction => ({
  instance_id: id,
  model_name_or_path: model,
  model_patch: patch,
});
const report = (out: string, runId: string, id: string, model = "fixture-model") =>
  JSON.parse(readFileSync(join(instanceDirectory(out, runId, model, id), "report.json"), "utf8"))[id];

describe("evaluation on a real Docker engine", () => {
  it("gold → resolved, empty → empty patch, a patch that does not apply → patch_successfully_applied false; the harness's files and summary", async () => {
    const out = join(work, "run-a");
    const lines: string[] = [];
    const result = await evaluatePredictions({
      predictions: [predict("loclab-fixtures__calc-1", GOLD)],
      instances,
      runId: "gold",
      out,
      images: "local",
      repos,
      specs: SPECS,
      cacheDir: cacheDir(),
      minFreeBytes: 2 ** 30,
      onProgress: (event) =>
        lines.push(
          event.kind === "log"
            ? event.line
            : `${event.done}/${event.total} ${event.outcome.instance_id} ${event.outcome.status}`,
        ),
    });
    expect(result.outcomes.map((outcome) => outcome.status)).toEqual(["resolved"]);
    expect(report(out, "gold", "loclab-fixtures__calc-1")).toEqual({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: true,
      tests_status: {
        FAIL_TO_PASS: { success: ["tests/test_calc.py::test_add"], failure: [] },
        PASS_TO_PASS: { success: ["tests/test_calc.py::test_sub"], failure: [] },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
    });
    const directory = instanceDirectory(out, "gold", "fixture-model", "loclab-fixtures__calc-1");
    for (const file of ["test_output.txt", "patch.diff", "eval.sh", "run_instance.log", "outcome.json"])
      expect(existsSync(join(directory, file)), file).toBe(true);
    const log = readFileSync(join(directory, "test_output.txt"), "utf8");
    expect(log).toContain("+ : '>>>>> Start Test Output'");
    expect(log).toContain("PASSED tests/test_calc.py::test_add");
    expect(log).toContain(">>>>> Test Exit Code: 0");
    expect(readFileSync(join(directory, "run_instance.log"), "utf8")).toContain(">>>>> Applied Patch");
    expect(result.summary).toMatchObject({
      total_instances: 3,
      submitted_instances: 1,
      resolved_ids: ["loclab-fixtures__calc-1"],
      incomplete_ids: ["loclab-fixtures__calc-2", "loclab-fixtures__calc-3"],
      schema_version: 2,
    });
    expect(JSON.parse(readFileSync(join(out, "fixture-model.gold.json"), "utf8"))).toEqual(result.summary);
    expect(lines).toContain("1/1 loclab-fixtures__calc-1 resolved");

    const out2 = join(work, "run-b");
    const second = await evaluatePredictions({
      predictions: [predict("loclab-fixtures__calc-1", ""), predict("loclab-fixtures__calc-3", BAD)],
      instances,
      runId: "mixed",
      out: out2,
      images: "local",
      repos,
      specs: SPECS,
      cacheDir: false,
      minFreeBytes: 2 ** 30,
    });
    expect(second.outcomes.map((outcome) => [outcome.instance_id, outcome.status])).toEqual([
      ["loclab-fixtures__calc-1", "empty-patch"],
      ["loclab-fixtures__calc-3", "patch-apply-failed"],
    ]);
    expect(report(out2, "mixed", "loclab-fixtures__calc-3")).toEqual({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: false,
      resolved: false,
    });
    expect(
      readFileSync(
        join(instanceDirectory(out2, "mixed", "fixture-model", "loclab-fixtures__calc-3"), "run_instance.log"),
        "utf8",
      ),
    ).toContain(">>>>> Patch Apply Failed");
    expect(second.summary).toMatchObject({
      empty_patch_ids: ["loclab-fixtures__calc-1"],
      unresolved_ids: ["loclab-fixtures__calc-3"],
      patch_apply_failed_ids: ["loclab-fixtures__calc-3"],
      error_ids: [],
      resolved_ids: [],
    });
  });

  it("finds the mirror as the rest of loclab does: a clone named `<owner>__<name>`, not bare, works; a missing one is named", async () => {
    const plain = join(work, "repos-plain");
    fixtureGit(work, "clone", "-q", join(repos, "loclab-fixtures__calc.git"), join(plain, "loclab-fixtures__calc"));
    const options = {
      predictions: [predict("loclab-fixtures__calc-1", GOLD)],
      instances,
      images: "local" as const,
      specs: SPECS,
      minFreeBytes: 2 ** 30,
    };
    const found = await evaluatePredictions({
      ...options,
      runId: "plain-mirror",
      out: join(work, "run-plain"),
      repos: plain,
      cacheDir: join(work, "cache-plain"),
    });
    expect(found.outcomes.map((outcome) => outcome.status)).toEqual(["resolved"]);
    const missing = await evaluatePredictions({
      ...options,
      runId: "no-mirror",
      out: join(work, "run-no-mirror"),
      repos: join(work, "repos-none"),
      cacheDir: join(work, "cache-none"),
    });
    expect(missing.outcomes.map((outcome) => [outcome.status, outcome.infra_failure_reason])).toEqual([
      ["infra-failure", "mirror-missing"],
    ]);
    expect(missing.outcomes[0]?.infra_failure_detail).toContain(
      `neither ${join(work, "repos-none", "loclab-fixtures__calc")} nor ${join(work, "repos-none", "loclab-fixtures__calc.git")} exists`,
    );
  });

  it("the empty patch run on the base commit fails the FAIL_TO_PASS test; a repeated patch comes from the cache, a repeated run id resumes", async () => {
    const out = join(work, "run-c");
    const empty = await evaluatePredictions({
      predictions: [predict("loclab-fixtures__calc-1", "")],
      instances,
      runId: "empty",
      out,
      images: "local",
      repos,
      specs: SPECS,
      cacheDir: cacheDir(),
      minFreeBytes: 2 ** 30,
      runEmptyPatches: true,
    });
    expect(empty.outcomes[0]).toMatchObject({ status: "unresolved", resolution: "RESOLVED_NO", cached: false });
    expect(report(out, "empty", "loclab-fixtures__calc-1").tests_status.FAIL_TO_PASS).toEqual({
      success: [],
      failure: ["tests/test_calc.py::test_add"],
    });

    const again = await evaluatePredictions({
      predictions: [predict("loclab-fixtures__calc-1", GOLD, "other-model")],
      instances,
      runId: "gold-again",
      out,
      images: "local",
      repos,
      specs: SPECS,
      cacheDir: cacheDir(),
      minFreeBytes: 2 ** 30,
    });
    expect(again.outcomes[0]).toMatchObject({
      status: "resolved",
      cached: true,
      model_name_or_path: "other-model",
      run_id: "gold-again",
    });
    expect(report(out, "gold-again", "loclab-fixtures__calc-1", "other-model").resolved).toBe(true);

    const events: boolean[] = [];
    const resumed = await evaluatePredictions({
      predictions: [predict("loclab-fixtures__calc-1", GOLD, "other-model")],
      instances,
      runId: "gold-again",
      out,
      images: "local",
      repos,
      specs: SPECS,
      cacheDir: false,
      minFreeBytes: 2 ** 30,
      onProgress: (event) => event.kind === "instance" && events.push(event.resumed),
    });
    expect(events).toEqual([true]);
    expect(resumed.summary.resolved_ids).toEqual(["loclab-fixtures__calc-1"]);
  });

  it("a test that hangs is a timeout and a container killed mid-run is reported: infrastructure, not unresolved; no container is left", async () => {
    const out = join(work, "run-d");
    const { docker } = await connectDocker();
    const result = await evaluatePredictions({
      predictions: [predict("loclab-fixtures__calc-2", GOLD), predict("loclab-fixtures__calc-3", GOLD)],
      instances,
      runId: "infra",
      out,
      images: "local",
      repos,
      specs: SPECS,
      cacheDir: cacheDir(),
      minFreeBytes: 2 ** 30,
      concurrency: 2,
      timeoutMs: 40_000,
      onContainer: (id, container) => {
        // Kill calc-3's container while its slow test runs (the eval script takes ≥ 120 s).
        if (id === "loclab-fixtures__calc-3") setTimeout(() => void container.kill().catch(() => undefined), 15_000);
      },
    });
    expect(
      result.outcomes.map((outcome) => [outcome.instance_id, outcome.status, outcome.infra_failure_reason]),
    ).toEqual([
      ["loclab-fixtures__calc-2", "infra-failure", "timeout"],
      ["loclab-fixtures__calc-3", "infra-failure", "container-killed"],
    ]);
    expect(result.summary).toMatchObject({
      error_ids: ["loclab-fixtures__calc-2", "loclab-fixtures__calc-3"],
      unresolved_ids: [],
      resolved_ids: [],
    });
    expect(result.summary.infra_failures["loclab-fixtures__calc-2"]?.reason).toBe("timeout");
    expect(report(out, "infra", "loclab-fixtures__calc-2")).toMatchObject({ resolved: false, infra_failure: true });
    expect(
      readFileSync(
        join(instanceDirectory(out, "infra", "fixture-model", "loclab-fixtures__calc-2"), "test_output.txt"),
        "utf8",
      ),
    ).toContain("Timeout error: 40 seconds exceeded.");
    const left = await docker.listContainers({ all: true, filters: { label: ["loclab.eval.run=infra"] } });
    expect(left).toEqual([]);
    // An infrastructure failure is not cached: the same run id tries it again.
    const cached = existsSync(cacheDir())
      ? execFileSync("find", [cacheDir(), "-name", "outcome.json"], { encoding: "utf8" }).trim().split("\n")
      : [];
    for (const entry of cached) expect(JSON.parse(readFileSync(entry, "utf8")).status).not.toBe("infra-failure");
  });

  it("prebuilt images by their published names: used when present locally; a missing one with pulling off is an infrastructure failure", async () => {
    const { docker } = await connectDocker();
    const built = await docker.listImages({ filters: { label: ["loclab.instance=loclab-fixtures__calc-1"] } });
    expect(built.length).toBeGreaterThan(0);
    // As if it were SWE-bench's image of this instance ("__" is written "_1776_").
    await docker
      .getImage(built[0]!.Id)
      .tag({ repo: "swebench/sweb.eval.x86_64.loclab-fixtures_1776_calc-1", tag: "latest" });
    const out = join(work, "prebuilt");
    const result = await evaluatePredictions({
      predictions: [predict("loclab-fixtures__calc-1", GOLD), predict("loclab-fixtures__calc-2", GOLD)],
      instances,
      runId: "prebuilt",
      out,
      images: "prebuilt",
      prebuilt: { pull: false },
      specs: SPECS,
      cacheDir: false,
      minFreeBytes: 2 ** 30,
    });
    expect(
      result.outcomes.map((outcome) => [outcome.instance_id, outcome.status, outcome.infra_failure_reason]),
    ).toEqual([
      ["loclab-fixtures__calc-1", "resolved", undefined],
      ["loclab-fixtures__calc-2", "infra-failure", "image-missing"],
    ]);
    expect(result.outcomes[0]!.image?.name).toBe("swebench/sweb.eval.x86_64.loclab-fixtures_1776_calc-1:latest");
    expect(result.summary.infra_failures["loclab-fixtures__calc-2"]?.detail).toMatch(
      /swebench\/sweb\.eval\.x86_64\.loclab-fixtures_1776_calc-2:latest is not present locally \(pulling is off\)/,
    );
    // The harness's images activate conda's testbed; the eval script says so.
    expect(
      readFileSync(
        join(instanceDirectory(out, "prebuilt", "fixture-model", "loclab-fixtures__calc-1"), "eval.sh"),
        "utf8",
      ),
    ).toContain("conda activate testbed");
  });

  it("calibration: gold three times and the empty patch once on the same image, nothing flips on a deterministic suite; the image is recorded as validated, and an evaluation on it says so", async () => {
    const out = join(work, "calibrate");
    const validationDir = join(work, "validations");
    // calc-1's gold patch evaluated once, looking the image up in this test's validations.
    const evaluateGold = (runId: string) =>
      evaluatePredictions({
        predictions: [predict("loclab-fixtures__calc-1", GOLD)],
        instances,
        runId,
        out,
        images: "local",
        repos,
        specs: SPECS,
        validationDir,
        cacheDir: false,
        minFreeBytes: 2 ** 30,
      });
    // Before any calibration, the image of calc-1 is not validated: the outcome and summary say so.
    const before = await evaluateGold("unvalidated");
    expect(before.outcomes[0]).toMatchObject({ status: "resolved", image_validated: false });
    expect(before.summary.unvalidated_image_ids).toEqual(["loclab-fixtures__calc-1"]);
    const result = await calibrate({
      calibrate: [instances[0]!],
      instances,
      runId: "cal",
      out,
      images: "local",
      repos,
      specs: SPECS,
      validationDir,
      minFreeBytes: 2 ** 30,
    });
    expect(result.instances["loclab-fixtures__calc-1"]).toEqual({
      flaky: [],
      goldFailing: [],
      passWithoutFix: [],
      goldResolvesWithoutFlaky: true,
      gold: ["resolved", "resolved", "resolved"],
      empty: "unresolved",
      validated: true,
    });
    const python = before.outcomes[0]!.python!;
    expect(result.table).toEqual([
      {
        repo: REPO,
        version: "1.0",
        pythons: [`${python.actual} (exact)`],
        instances: 1,
        built: 1,
        gold_resolved: 1,
        empty_resolved: 0,
        with_flaky_tests: 0,
        infra_failures: 0,
        validated: 1,
      },
    ]);
    const written = JSON.parse(readFileSync(result.path, "utf8"));
    expect(written.instances).toEqual(result.instances);
    expect(written.table).toEqual(result.table);
    for (const run of ["cal.gold-1", "cal.gold-2", "cal.gold-3"])
      expect(
        JSON.parse(
          readFileSync(join(instanceDirectory(out, run, "gold", "loclab-fixtures__calc-1"), "outcome.json"), "utf8"),
        ).cached,
      ).toBe(false);
    // The record beside the images, by the instance image's id.
    const records = readdirSync(validationDir);
    expect(records).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(validationDir, records[0]!), "utf8"))).toMatchObject({
      image_id: before.outcomes[0]!.image!.id,
      instance_id: "loclab-fixtures__calc-1",
      validated: true,
      gold: ["resolved", "resolved", "resolved"],
      empty: "unresolved",
    });
    const after = await evaluateGold("validated");
    expect(after.outcomes[0]).toMatchObject({ status: "resolved", image_validated: true });
    expect(after.summary.unvalidated_image_ids).toEqual([]);
  });

  it("the inventory lists the base, env and instance images with their Python and validation; prune removes instance images only by default, and can say so first", async () => {
    const { docker } = await connectDocker({});
    const validationDir = join(work, "validations");
    const inventory = await imageInventory(docker, { validationDir });
    const kinds = new Set(inventory.images.map((image) => image.kind));
    expect(kinds).toEqual(new Set(["base", "env", "instance"]));
    const calc1 = inventory.images.find(
      (image) => image.kind === "instance" && image.instance === "loclab-fixtures__calc-1",
    );
    // Calibrated above: validated, with the Python of its base.
    expect(calc1).toMatchObject({ repo: REPO, validated: true });
    expect(calc1?.python).toMatch(/^3\.11\.\d+$/);
    for (const image of inventory.images) {
      expect(image.ownBytes).toBeGreaterThanOrEqual(0);
      expect(image.ownBytes).toBeLessThanOrEqual(image.sizeBytes);
    }
    // The base holds most of the bytes; an instance image adds only its checkout and wheels.
    expect(inventory.totals.base.ownBytes).toBeGreaterThan(
      inventory.totals.instance.ownBytes / inventory.totals.instance.images,
    );
    expect(inventory.caches.map((cache) => cache.name)).toEqual(["roots", "wheels", "pip", "validations"]);
    expect(inventory.caches.find((cache) => cache.name === "validations")).toMatchObject({
      path: validationDir,
      entries: 1,
    });
    const instanceCount = inventory.totals.instance.images;
    const dry = await pruneImages(docker, { kinds: ["instance"], dryRun: true, validationDir });
    expect(dry.removed).toHaveLength(instanceCount);
    expect((await imageInventory(docker, { validationDir })).totals.instance.images).toBe(instanceCount);
    const pruned = await pruneImages(docker, { kinds: ["instance"], validationDir });
    expect(pruned.removed.sort()).toEqual(dry.removed.sort());
    // calc-1's image also carries a prebuilt name (the prebuilt test gave it one): that name stays.
    expect(await findImage(docker, prebuiltImageName("loclab-fixtures__calc-1"))).toBeDefined();
    const after = await imageInventory(docker, { validationDir });
    expect(after.totals.instance.images).toBe(0);
    expect(after.totals.base.images).toBe(inventory.totals.base.images);
    expect(after.totals.env.images).toBe(inventory.totals.env.images);
  });

  it("a dead engine is one clear error before any work", async () => {
    await expect(
      evaluatePredictions({
        predictions: [predict("loclab-fixtures__calc-1", GOLD)],
        instances,
        runId: "dead",
        out: join(work, "dead"),
        images: "local",
        repos,
        specs: SPECS,
        docker: { socketPath: join(work, "no.sock") },
      }),
    ).rejects.toThrow(DockerUnavailableError);
    expect(existsSync(join(work, "dead"))).toBe(false);
  });
});
