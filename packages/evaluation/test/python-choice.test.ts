import { harnessSpecs } from "@loclab/grading";
import { describe, expect, it } from "vitest";
import {
  builderScript,
  choosePython,
  describePythonChoice,
  harnessResolutionDate,
  pipWheelCommand,
  PYTHON_BASES,
  PythonChoiceError,
  resolutionCutoff,
  runSummary,
  type InstanceOutcome,
} from "../src/index.js";

describe("choosePython: the base image for the Python a spec asks for", () => {
  it("exact where a suite ships it, else the nearest newer, else the newest older", () => {
    const rows = ["3.5", "3.6", "3.7", "3.8", "3.9", "3.9.2", "3.10", "3.11", "3.12"].map((requested) => {
      const choice = choosePython(requested);
      return [requested, choice.python, choice.suite, choice.rule];
    });
    expect(rows).toEqual([
      ["3.5", "3.9", "bullseye", "nearest-newer"],
      ["3.6", "3.9", "bullseye", "nearest-newer"],
      ["3.7", "3.9", "bullseye", "nearest-newer"],
      ["3.8", "3.9", "bullseye", "nearest-newer"],
      ["3.9", "3.9", "bullseye", "exact"],
      ["3.9.2", "3.9", "bullseye", "exact"],
      ["3.10", "3.11", "bookworm", "nearest-newer"],
      ["3.11", "3.11", "bookworm", "exact"],
      ["3.12", "3.11", "bookworm", "nearest-older"],
    ]);
  });

  it("other bases change the answer (a suite with 3.8 added is exact for 3.8 and nearest for 3.7)", () => {
    const bases = [...PYTHON_BASES, { python: "3.8", suite: "focal-like" }];
    expect(choosePython("3.8", bases)).toMatchObject({ python: "3.8", rule: "exact" });
    expect(choosePython("3.7", bases)).toMatchObject({ python: "3.8", rule: "nearest-newer" });
  });

  it("a malformed request or another major version is a clear error naming it", () => {
    expect(() => choosePython("three")).toThrow(PythonChoiceError);
    expect(() => choosePython("")).toThrow(/Python "": not a version/);
    expect(() => choosePython("2.7")).toThrow(
      /Python "2.7": no base image ships Python 2 \(bases: 3.9 \(bullseye\), 3.11 \(bookworm\)\)/,
    );
  });

  it("every Python the harness's specs name resolves, and the table of choices is the rule's", () => {
    const counts = new Map<string, number>();
    for (const versions of Object.values(harnessSpecs()))
      for (const spec of Object.values(versions)) {
        const key = describePythonChoice(choosePython(spec.python));
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    // The harness pins no Python outside 3.5–3.11; each has an answer.
    for (const key of counts.keys()) expect(key).toMatch(/^3\.(9|11) (\(exact\)|for 3\.\d+ \(nearest-newer\))$/);
    expect(counts.get("3.9 (exact)")).toBeGreaterThan(0);
    expect(counts.get("3.9 for 3.6 (nearest-newer)")).toBeGreaterThan(0);
    expect(counts.get("3.11 for 3.10 (nearest-newer)")).toBeGreaterThan(0);
  });
});

describe("resolution dates", () => {
  it("the harness's date per repository, none for another, now or a given date for all; a bad date is an error", () => {
    expect(harnessResolutionDate("sphinx-doc/sphinx")).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/);
    expect(resolutionCutoff("sphinx-doc/sphinx")).toBe(harnessResolutionDate("sphinx-doc/sphinx"));
    expect(resolutionCutoff("acme/calc")).toBeUndefined();
    expect(resolutionCutoff("sphinx-doc/sphinx", "now")).toBeUndefined();
    expect(resolutionCutoff("acme/calc", "2024-10-01T00:00:00Z")).toBe("2024-10-01T00:00:00Z");
    expect(() => resolutionCutoff("acme/calc", "last tuesday")).toThrow(
      /"last tuesday" is not harness, now or an ISO date/,
    );
  });
});

describe("the builder's pip wheel command", () => {
  it("passes the cutoff to pip before the caller's arguments, and nothing without one", () => {
    expect(
      pipWheelCommand("pip-26.0.1-py3-none-any.whl", {
        args: ["-r", "r.txt"],
        uploadedPriorTo: "2025-01-04T00:00:00Z",
      }),
    ).toEqual([
      "python3",
      "/tmp/loclab/wheels/pip-26.0.1-py3-none-any.whl/pip",
      "wheel",
      "--wheel-dir",
      "/tmp/loclab/wheels",
      "--find-links",
      "/tmp/loclab/wheels",
      "--uploaded-prior-to",
      "2025-01-04T00:00:00Z",
      "-r",
      "r.txt",
    ]);
    expect(pipWheelCommand("pip.whl", { args: ["six"] })).not.toContain("--uploaded-prior-to");
  });
});

describe("the wheel builder's script", () => {
  it("mounts only inside its own namespace, binds each folder under /tmp/loclab, quotes what it passes", () => {
    const script = builderScript(
      {
        builder: { root: "/cache/roots/ab'c/root", python: "3.9.2" },
        binds: [{ host: "/host/wheels dir", name: "wheels" }],
        command: ["python3", "-c", "print('hi')"],
      },
      "/etc/ssl/certs/ca-certificates.crt",
      { PIP_CONSTRAINT: "/tmp/loclab/wheels/constraints.txt" },
    );
    expect(script).toContain(`R='/cache/roots/ab'\\''c/root'`);
    expect(script).toContain(`mount --bind '/host/wheels dir' "$R/tmp/loclab/wheels"`);
    expect(script).toContain(`mount --bind '/etc/ssl/certs/ca-certificates.crt' "$R/tmp/loclab/ca.pem"`);
    expect(script).toContain('mount -t tmpfs tmpfs "$R/tmp"');
    expect(script.trim().split("\n").at(-1)).toBe(
      `exec chroot "$R" /usr/bin/env -i 'PIP_CONSTRAINT=/tmp/loclab/wheels/constraints.txt' 'python3' '-c' 'print('\\''hi'\\'')'`,
    );
    expect(() =>
      builderScript(
        { builder: { root: "/r", python: "3.9" }, binds: [{ host: "/x", name: "../etc" }], command: ["true"] },
        undefined,
        {},
      ),
    ).toThrow(/bind name "..\/etc" must be a plain file name/);
  });
});

describe("runSummary: which Python each instance ran on", () => {
  const outcome = (id: string, python?: InstanceOutcome["python"]): InstanceOutcome => ({
    instance_id: id,
    model_name_or_path: "m",
    run_id: "r",
    status: "resolved",
    patch_sha256: "x",
    cached: false,
    started_at: "2026-12-03T00:00:00.000Z",
    duration_ms: 1,
    harness_version: "4.1.0",
    ...(python ? { python } : {}),
  });
  it("counts the Pythons and lists the substituted instances; prebuilt images have none", () => {
    const summary = runSummary({
      datasetIds: ["a", "b", "c", "d"],
      submittedIds: ["a", "b", "c", "d"],
      outcomes: [
        outcome("b", { requested: "3.6", actual: "3.9.2", rule: "nearest-newer" }),
        outcome("a", { requested: "3.9", actual: "3.9.2", rule: "exact" }),
        outcome("c", { requested: "3.6", actual: "3.9.2", rule: "nearest-newer" }),
        outcome("d"),
      ],
      runId: "r",
      harnessVersion: "4.1.0",
      images: "local",
    });
    expect(summary.pythons).toEqual({ "3.9.2 (exact)": 1, "3.9.2 for 3.6 (nearest-newer)": 2 });
    expect(summary.python_substituted_ids).toEqual(["b", "c"]);
  });
});
