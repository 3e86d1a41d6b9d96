import { describe, expect, it } from "vitest";
import {
  FindingSchema,
  InstanceSchema,
  LocationSchema,
  PredictionSchema,
  SCHEMA_VERSION,
  artifactSchema,
  formatZodError,
  makeArtifact,
  repoKeyFromInstanceId,
  stampRecord,
  versionedRecordSchema,
} from "../src/index.js";
import { z } from "zod";

const row = {
  repo: "astropy/astropy",
  instance_id: "astropy__astropy-12907",
  base_commit: "d16bfe05a744909de4b27f5875fe0d4ed41ce607",
  problem_statement:
    "Modeling's `separability_matrix` does not compute separability correctly for nested CompoundModels",
  patch: "diff --git a/x.py b/x.py\n",
};

describe("InstanceSchema", () => {
  it("accepts FAIL_TO_PASS as a JSON-encoded string (SWE-bench Lite dumps) and as a list", () => {
    const encoded = InstanceSchema.parse({ ...row, FAIL_TO_PASS: '["test_a", "test_b"]', PASS_TO_PASS: "[]" });
    expect(encoded.FAIL_TO_PASS).toEqual(["test_a", "test_b"]);
    expect(encoded.PASS_TO_PASS).toEqual([]);
    const list = InstanceSchema.parse({ ...row, FAIL_TO_PASS: ["test_a"] });
    expect(list.FAIL_TO_PASS).toEqual(["test_a"]);
  });

  it("names the field when a test list is neither a list nor JSON", () => {
    const result = InstanceSchema.safeParse({ ...row, FAIL_TO_PASS: "test_a, test_b" });
    expect(result.success).toBe(false);
    if (!result.success) expect(formatZodError(result.error)).toMatch(/^FAIL_TO_PASS: expected a list of test ids/);
    const notStrings = InstanceSchema.safeParse({ ...row, PASS_TO_PASS: "[1, 2]" });
    expect(notStrings.success).toBe(false);
    if (!notStrings.success) expect(formatZodError(notStrings.error)).toMatch(/^PASS_TO_PASS\.0: /);
  });

  it("keeps unknown fields (Loc-Bench category) and requires the five common ones", () => {
    expect(InstanceSchema.parse({ ...row, category: "Bug Report" }).category).toBe("Bug Report");
    const { base_commit: _omit, ...withoutCommit } = row;
    const missing = InstanceSchema.safeParse(withoutCommit);
    expect(missing.success).toBe(false);
    if (!missing.success) expect(formatZodError(missing.error)).toMatch(/^base_commit: /);
    expect(InstanceSchema.safeParse({ ...row, repo: "astropy" }).success).toBe(false);
  });

  it("reads numeric versions as strings", () => {
    expect(InstanceSchema.parse({ ...row, version: 4.3 }).version).toBe("4.3");
  });
});

describe("LocationSchema", () => {
  it("defaults the role to edit and refuses reversed or non-positive spans", () => {
    expect(LocationSchema.parse({ path: "a.py", startLine: 3, endLine: 3 }).role).toBe("edit");
    const reversed = LocationSchema.safeParse({ path: "a.py", startLine: 9, endLine: 3, role: "read" });
    expect(reversed.success).toBe(false);
    if (!reversed.success)
      expect(formatZodError(reversed.error)).toBe("endLine: startLine must not be greater than endLine");
    expect(LocationSchema.safeParse({ path: "a.py", startLine: 0, endLine: 3 }).success).toBe(false);
    expect(LocationSchema.safeParse({ path: "a.py", startLine: 1.5, endLine: 3 }).success).toBe(false);
    expect(LocationSchema.safeParse({ path: "a.py", startLine: 1, endLine: 3, role: "write" }).success).toBe(false);
  });
});

describe("FindingSchema and PredictionSchema", () => {
  const finding = {
    locationExplanation: "_cstack builds the coordinate matrix of the right operand",
    rootCause: "the right block is filled with 1 instead of the operand's own matrix",
    solutionIdea: "assign `right` instead of 1",
    dependencies: "separability_matrix, _separable",
    testingImpact: "test_separable.py nested compound models",
  };

  it("requires all five fields of the finding, each non-blank", () => {
    expect(FindingSchema.parse(finding)).toEqual(finding);
    const blank = FindingSchema.safeParse({ ...finding, rootCause: "  " });
    expect(blank.success).toBe(false);
    if (!blank.success) expect(formatZodError(blank.error)).toBe("rootCause: rootCause must not be empty");
    const { testingImpact: _omit, ...four } = finding;
    expect(FindingSchema.safeParse(four).success).toBe(false);
  });

  it("parses a prediction with ranked files, locations and an optional finding", () => {
    const prediction = PredictionSchema.parse({
      instanceId: row.instance_id,
      files: ["astropy/modeling/separable.py"],
      locations: [{ path: "astropy/modeling/separable.py", startLine: 242, endLine: 248, symbol: "_cstack" }],
      finding,
    });
    expect(prediction.locations[0]?.role).toBe("edit");
    expect(PredictionSchema.parse({ instanceId: "x", files: [] }).locations).toEqual([]);
    const bad = PredictionSchema.safeParse({
      instanceId: "x",
      files: ["a.py"],
      locations: [{ path: "a.py", startLine: 5, endLine: 2 }],
    });
    expect(bad.success).toBe(false);
    if (!bad.success)
      expect(formatZodError(bad.error)).toBe("locations.0.endLine: startLine must not be greater than endLine");
  });
});

describe("artifacts", () => {
  const provenance = { tool: "loclab", toolVersion: "0.1.0", createdAt: "2026-11-30T00:00:00.000Z" };

  it("wraps a payload with schemaVersion, kind and provenance, and validates it back", () => {
    const artifact = makeArtifact("gold-summary", { n: 3 }, provenance);
    expect(artifact.schemaVersion).toBe(SCHEMA_VERSION);
    const schema = artifactSchema(z.object({ n: z.number() }));
    expect(schema.parse(JSON.parse(JSON.stringify(artifact)))).toEqual(artifact);
    expect(schema.safeParse({ ...artifact, schemaVersion: 99 }).success).toBe(false);
  });

  it("stamps JSONL records and checks the stamp", () => {
    const record = stampRecord({ instanceId: "x", files: [] as string[] });
    expect(record.schemaVersion).toBe(SCHEMA_VERSION);
    const schema = versionedRecordSchema(PredictionSchema);
    expect(schema.safeParse(record).success).toBe(true);
    expect(schema.safeParse({ instanceId: "x", files: [] }).success).toBe(false);
  });
});

describe("repoKeyFromInstanceId", () => {
  it("drops the trailing issue number", () => {
    expect(repoKeyFromInstanceId("django__django-11099")).toBe("django__django");
    expect(repoKeyFromInstanceId("scikit-learn__scikit-learn-13142")).toBe("scikit-learn__scikit-learn");
  });
});
