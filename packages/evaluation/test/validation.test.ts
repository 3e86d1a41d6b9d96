import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isValidated, readValidation, recordValidation, validationTable } from "../src/index.js";

describe("image validation", () => {
  it("validated only when every gold run resolved and the empty patch ran unresolved", () => {
    expect(isValidated({ gold: ["resolved", "resolved"], empty: "unresolved" })).toBe(true);
    expect(isValidated({ gold: ["resolved", "unresolved"], empty: "unresolved" })).toBe(false);
    expect(isValidated({ gold: ["resolved"], empty: "resolved" })).toBe(false);
    expect(isValidated({ gold: ["resolved"], empty: undefined })).toBe(false);
    expect(isValidated({ gold: [], empty: "unresolved" })).toBe(false);
  });

  it("the table per repository × version counts built, gold resolved, empty resolved, flaky, infrastructure failures", () => {
    const table = validationTable([
      {
        instance_id: "a-1",
        repo: "o/a",
        version: "1.10",
        python: "3.9.2 (exact)",
        gold: ["resolved", "resolved"],
        empty: "unresolved",
        flaky: [],
      },
      {
        instance_id: "a-2",
        repo: "o/a",
        version: "1.10",
        python: "3.9.2 (exact)",
        gold: ["resolved", "unresolved"],
        empty: "unresolved",
        flaky: ["t"],
      },
      {
        instance_id: "a-3",
        repo: "o/a",
        version: "1.2",
        python: "3.9.2 for 3.6 (nearest-newer)",
        gold: ["resolved", "resolved"],
        empty: "resolved",
        flaky: [],
      },
      {
        instance_id: "a-4",
        repo: "o/a",
        version: "1.2",
        gold: ["infra-failure", "infra-failure"],
        empty: "infra-failure",
        flaky: [],
        infraReason: "image-build-failed",
      },
      {
        instance_id: "b-1",
        repo: "o/b",
        version: "0.1",
        gold: ["resolved", "resolved"],
        empty: "infra-failure",
        flaky: [],
        infraReason: "timeout",
      },
    ]);
    expect(
      table.map((row) => [
        row.repo,
        row.version,
        row.instances,
        row.built,
        row.gold_resolved,
        row.empty_resolved,
        row.with_flaky_tests,
        row.infra_failures,
        row.validated,
      ]),
    ).toEqual([
      ["o/a", "1.2", 2, 1, 1, 1, 0, 1, 0],
      ["o/a", "1.10", 2, 2, 1, 0, 1, 0, 1],
      ["o/b", "0.1", 1, 1, 1, 0, 0, 1, 0],
    ]);
    expect(table[0]!.pythons).toEqual(["3.9.2 for 3.6 (nearest-newer)"]);
  });

  it("records by image id and reads back; an unknown image has no record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "loclab-validations-"));
    const record = {
      image_id: "sha256:abc123",
      image_name: "loclab-swe/eval.x:1",
      instance_id: "x-1",
      repo: "o/x",
      version: "1.0",
      gold: ["resolved" as const, "resolved" as const],
      empty: "unresolved" as const,
      flaky: [],
      validated: true,
      run_id: "cal",
      at: "2026-12-03T00:00:00.000Z",
    };
    const path = await recordValidation(dir, record);
    expect(path).toBe(join(dir, "abc123.json"));
    expect(await readValidation(dir, "sha256:abc123")).toEqual(record);
    expect(await readValidation(dir, "sha256:other")).toBeUndefined();
  });
});
