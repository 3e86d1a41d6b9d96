import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectDocker } from "@loclab/docker";
import {
  evaluatePredictions,
  findImage,
  instanceDirectory,
  type EvaluationInstance,
  type NetworkStandins,
} from "@loclab/evaluation";
import { commitFiles, fixtureGit } from "@loclab/fixtures";
import type { HarnessSpec } from "@loclab/grading";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Network stand-ins on a real Docker engine. A fixture repository whose tests need what
// requests' tests need from the internet: http://httpbin.org answering (over HTTP/1.1, keeping
// the connection alive), https://httpbin.org answering with a certificate trusted even by a
// context given another bundle (requests verifies against its own), and a connection to
// 10.255.255.1 that times out rather than failing at once. The eval container has no network;
// with the stand-ins (httpbin in the env image, started on 127.0.0.1:80; the tarpit routed to
// lo) the gold patch resolves, without them the same task does not.
const REPO = "loclab-fixtures/net";
const SPEC: HarnessSpec = {
  python: "3.11",
  pip_packages: ["pytest==8.3.3"],
  install: "python -m pip install -e .",
  test_cmd: "pytest -rA",
  parser: "pytest",
};
const STANDINS: Record<string, NetworkStandins> = {
  [REPO]: {
    httpbin: {
      requirements: ["httpbin==0.10.2", "gunicorn==23.0.0"],
      hosts: ["httpbin.org"],
      port: 80,
      httpsPort: 443,
    },
    tarpits: ["10.255.255.1/32"],
  },
};

const BASE_FILES = {
  "setup.py": 'from setuptools import setup\n\nsetup(name="net", version="1.0", packages=["net"])\n',
  "net/__init__.py": "def double(x):\n    return x + x + 1\n",
  "tests/test_net.py": [
    "import http.client",
    "import json",
    "import os",
    "import socket",
    "import ssl",
    "import urllib.request",
    "",
    "import pytest",
    "",
    "",
    "def test_httpbin():",
    '    with urllib.request.urlopen("http://httpbin.org/get?x=1", timeout=30) as response:',
    '        assert json.load(response)["args"] == {"x": "1"}',
    "",
    "",
    "def test_keep_alive():",
    '    connection = http.client.HTTPConnection("httpbin.org", 80, timeout=30)',
    "    for _ in range(2):",
    '        connection.request("GET", "/get")',
    "        response = connection.getresponse()",
    "        response.read()",
    '        assert response.version == 11 and response.getheader("Connection", "").lower() == "keep-alive"',
    "",
    "",
    "def test_https():",
    '    context = ssl.create_default_context(cafile="/etc/ssl/certs/ca-certificates.crt")',
    '    with urllib.request.urlopen("https://httpbin.org/status/200", timeout=30, context=context) as response:',
    "        assert response.status == 200",
    "",
    "",
    "def test_tarpit():",
    "    with pytest.raises(TimeoutError):",
    '        socket.create_connection(("10.255.255.1", 80), timeout=1)',
    "",
  ].join("\n"),
};
const GOLD =
  "diff --git a/net/__init__.py b/net/__init__.py\n--- a/net/__init__.py\n+++ b/net/__init__.py\n@@ -1,2 +1,2 @@\n def double(x):\n-    return x + x + 1\n+    return x + x\n";
const TEST_PATCH =
  'diff --git a/tests/test_net.py b/tests/test_net.py\n--- a/tests/test_net.py\n+++ b/tests/test_net.py\n@@ -31,3 +31,9 @@ def test_https():\n def test_tarpit():\n     with pytest.raises(TimeoutError):\n         socket.create_connection(("10.255.255.1", 80), timeout=1)\n+\n+\n+def test_double():\n+    from net import double\n+\n+    assert double(2) == 4\n';

let work: string;
let repos: string;
let instance: EvaluationInstance;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "loclab-standins-"));
  const source = join(work, "source");
  const baseCommit = await commitFiles(source, BASE_FILES);
  repos = join(work, "repos");
  fixtureGit(work, "clone", "-q", "--bare", source, join(repos, "loclab-fixtures__net.git"));
  instance = {
    instance_id: "loclab-fixtures__net-1",
    repo: REPO,
    version: "1.0",
    base_commit: baseCommit,
    patch: GOLD,
    test_patch: TEST_PATCH,
    FAIL_TO_PASS: ["tests/test_net.py::test_double"],
    PASS_TO_PASS: [
      "tests/test_net.py::test_httpbin",
      "tests/test_net.py::test_keep_alive",
      "tests/test_net.py::test_https",
      "tests/test_net.py::test_tarpit",
    ],
  };
});
afterAll(() => {
  if (work && !process.env.LOCLAB_KEEP_TEST_DIR) rmSync(work, { recursive: true, force: true });
});

const evaluate = (runId: string, networkStandins: Record<string, NetworkStandins>) =>
  evaluatePredictions({
    predictions: [{ instance_id: instance.instance_id, model_name_or_path: "gold", model_patch: GOLD }],
    instances: [instance],
    runId,
    out: join(work, "out"),
    images: "local",
    repos,
    specs: { [REPO]: { "1.0": SPEC } },
    cacheDir: false,
    minFreeBytes: 2 ** 30,
    networkStandins,
  });

describe("network stand-ins", () => {
  it("with httpbin and the tarpit the gold patch resolves in a container with no network; the image and the run log say so", async () => {
    const result = await evaluate("standins", STANDINS);
    const outcome = result.outcomes[0]!;
    expect([outcome.status, outcome.infra_failure_detail]).toEqual(["resolved", undefined]);
    const log = readFileSync(
      join(instanceDirectory(join(work, "out"), "standins", "gold", instance.instance_id), "run_instance.log"),
      "utf8",
    );
    expect(log).toContain("network stand-in: tarpit 10.255.255.1/32 routed to lo");
    expect(log).toContain("network stand-in: httpbin on 127.0.0.1:80 and :443 for httpbin.org");
    const { docker } = await connectDocker({});
    const image = await findImage(docker, outcome.image!.name);
    expect(JSON.parse(image!.labels["loclab.network-standins"]!)).toEqual(STANDINS[REPO]);
  });

  it("without them the same task is not resolved: every test that needs the network fails", async () => {
    const result = await evaluate("no-standins", {});
    const outcome = result.outcomes[0]!;
    expect(outcome.status).toBe("unresolved");
    const report = JSON.parse(
      readFileSync(
        join(instanceDirectory(join(work, "out"), "no-standins", "gold", instance.instance_id), "report.json"),
        "utf8",
      ),
    )[instance.instance_id];
    expect(report.tests_status.FAIL_TO_PASS.success).toEqual(["tests/test_net.py::test_double"]);
    expect(report.tests_status.PASS_TO_PASS.failure.sort()).toEqual([
      "tests/test_net.py::test_httpbin",
      "tests/test_net.py::test_https",
      "tests/test_net.py::test_keep_alive",
      "tests/test_net.py::test_tarpit",
    ]);
  });
});
