import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlLineError, stampRecord } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import {
  readAgentlessPredictions,
  readBlagentPredictions,
  readLocAgentPredictions,
  readLoclabPredictions,
  readPredictions,
} from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "loclab-predictions-"));
let counter = 0;
/** Writes rows (objects, or raw text lines) to a fresh JSONL file in a temp folder. */
function jsonl(rows: readonly unknown[]): string {
  counter += 1;
  const file = join(dir, `rows-${counter}.jsonl`);
  writeFileSync(file, rows.map((row) => (typeof row === "string" ? row : JSON.stringify(row))).join("\n") + "\n");
  return file;
}

describe("ranking de-duplication and instance ids", () => {
  it("keeps the first occurrence of a file, after normalization, and counts the rest", async () => {
    const file = jsonl([
      { instance_id: "t__t-1", ranked_files: ["b.py", "./a.py", "b.py", "a.py", ".\\a.py", "c.py"] },
    ]);
    const { predictions, report } = await readBlagentPredictions(file);
    expect(predictions).toEqual([{ instanceId: "t__t-1", files: ["b.py", "a.py", "c.py"], locations: [] }]);
    expect(report).toMatchObject({ records: 1, duplicatesRemoved: 3, pathsNormalized: 2, emptyEntriesDropped: 0 });
  });

  it("keeps the first line of a repeated instance id and reports the id once", async () => {
    const file = jsonl([
      { instance_id: "t__t-1", ranked_files: ["first.py"] },
      { instance_id: "t__t-2", ranked_files: [] },
      { instance_id: "t__t-1", ranked_files: ["second.py"] },
      { instance_id: "t__t-1", ranked_files: ["third.py"] },
    ]);
    const { predictions, report } = await readBlagentPredictions(file);
    expect(predictions.map((p) => [p.instanceId, p.files])).toEqual([
      ["t__t-1", ["first.py"]],
      ["t__t-2", []],
    ]);
    expect(report.records).toBe(4);
    expect(report.duplicateInstanceIds).toEqual(["t__t-1"]);
    expect(report.emptyFileRankings).toBe(1);
  });

  it("returns predictions for ids outside the benchmark, and lists them", async () => {
    const file = jsonl([
      { instance_id: "t__t-1", ranked_files: ["a.py"] },
      { instance_id: "other__x-9", ranked_files: ["b.py"] },
      { instance_id: "t__t-2", ranked_files: ["c.py"] },
    ]);
    const { predictions, report } = await readBlagentPredictions(file, { instanceIds: ["t__t-1", "t__t-2"] });
    expect(predictions.map((p) => p.instanceId)).toEqual(["t__t-1", "other__x-9", "t__t-2"]);
    expect(report.unknownInstanceIds).toEqual(["other__x-9"]);
    const withSet = await readBlagentPredictions(file, { instanceIds: new Set(["t__t-1"]) });
    expect(withSet.report.unknownInstanceIds).toEqual(["other__x-9", "t__t-2"]);
    expect((await readBlagentPredictions(file)).report.unknownInstanceIds).toEqual([]);
  });

  it("drops entries left empty by normalization", async () => {
    const file = jsonl([{ instance_id: "t__t-1", found_files: ["./", "a.py", ""] }]);
    const { predictions, report } = await readAgentlessPredictions(file);
    expect(predictions[0]?.files).toEqual(["a.py"]);
    expect(report.emptyEntriesDropped).toBe(2);
  });
});

describe("normalization through repoOf and knownFilesOf", () => {
  it("uses the instance's repository and file list for files, modules, functions and locations", async () => {
    const file = jsonl([
      {
        instance_id: "django__django-1",
        found_files: ["django__django/django/db/query.py", "django/db/query.py", "django/django/db/sql.py"],
        found_modules: ["django/django/db/query.py:QuerySet"],
        found_entities: ["./django/db/query.py:QuerySet.filter", "django/db/query.py:QuerySet.filter"],
      },
    ]);
    const knownFiles = new Set(["django/db/query.py", "django/db/sql.py"]);
    const { predictions, report } = await readLocAgentPredictions(file, {
      repoOf: () => "django/django",
      knownFilesOf: (id) => (id === "django__django-1" ? knownFiles : undefined),
    });
    expect(predictions[0]).toEqual({
      instanceId: "django__django-1",
      files: ["django/db/query.py", "django/db/sql.py"],
      locations: [],
      modules: ["django/db/query.py:QuerySet"],
      functions: ["django/db/query.py:QuerySet.filter"],
    });
    expect(report).toMatchObject({ pathsNormalized: 4, duplicatesRemoved: 2 });
  });

  it("falls back to LocAgent's meta_data.repo, and without a file list leaves django/ alone", async () => {
    const file = jsonl([
      {
        instance_id: "psf__requests-1",
        found_files: ["psf/requests/requests/api.py", "requests/api.py"],
        meta_data: { repo: "psf/requests" },
      },
      { instance_id: "django__django-2", found_files: ["django/db/query.py"], meta_data: { repo: "django/django" } },
    ]);
    const { predictions } = await readLocAgentPredictions(file);
    expect(predictions.map((p) => p.files)).toEqual([["requests/api.py"], ["django/db/query.py"]]);
  });

  it("normalizes the file of an agentless function id without splitting a path that has a colon", async () => {
    const file = jsonl([
      {
        instance_id: "t__t-1",
        found_files: ["c:\\x\\a.py"],
        found_related_locs: { "c:\\x\\a.py": ["function: f\nline: 4-6"] },
      },
    ]);
    const { predictions } = await readAgentlessPredictions(file);
    expect(predictions[0]).toEqual({
      instanceId: "t__t-1",
      files: ["c:/x/a.py"],
      functions: ["c:/x/a.py:f"],
      locations: [{ path: "c:/x/a.py", startLine: 4, endLine: 6, role: "edit" }],
    });
  });
});

describe("agentless format", () => {
  it("turns function and class lines into path:Name in order, de-duplicated, and counts ignored lines", async () => {
    const file = jsonl([
      {
        instance_id: "t__t-1",
        found_files: ["a.py", "b.py"],
        found_related_locs: {
          "a.py": ["class: A\nfunction: A.f\nvariable: V\nfunction: A.f"],
          "b.py": ["function: g\nline: 5"],
          "z.py": ["class: Z"],
        },
        found_edit_locs: {},
      },
      { instance_id: "t__t-2", found_files: ["a.py"] },
    ]);
    const { predictions, report } = await readAgentlessPredictions(file);
    expect(predictions).toEqual([
      {
        instanceId: "t__t-1",
        files: ["a.py", "b.py"],
        functions: ["a.py:A", "a.py:A.f", "b.py:g", "z.py:Z"],
        locations: [{ path: "b.py", startLine: 5, endLine: 5, role: "edit" }],
      },
      { instanceId: "t__t-2", files: ["a.py"], locations: [] },
    ]);
    expect(report).toMatchObject({ duplicatesRemoved: 1, ignoredLocLines: 1, ignoredLocKinds: { variable: 1 } });
  });

  it("accepts the list form aligned with found_files", async () => {
    const file = jsonl([
      {
        instance_id: "t__t-1",
        found_files: ["a.py", "b.py"],
        found_related_locs: [["function: f"], ["class: B\nline: 2-3"]],
      },
    ]);
    const { predictions } = await readPredictions(file, { format: "agentless" });
    expect(predictions[0]?.functions).toEqual(["a.py:f", "b.py:B"]);
    expect(predictions[0]?.locations).toEqual([{ path: "b.py", startLine: 2, endLine: 3, role: "edit" }]);
  });
});

describe("malformed spans and bad lines", () => {
  const rows = [
    { instance_id: "t__t-1", found_files: ["a.py"], found_related_locs: { "a.py": ["line: 3"] } },
    { instance_id: "t__t-2", found_files: ["a.py"], found_related_locs: { "a.py": ["function: f\nline: 9-3"] } },
    "{not json",
    { instance_id: "t__t-3", found_files: ["a.py"], found_related_locs: { "a.py": ["line: 0"] } },
    { instance_id: "t__t-4", found_files: ["a.py"] },
  ];

  it("stops at a malformed span with an error naming the file, line and instance", async () => {
    const file = jsonl(rows);
    const error = await readAgentlessPredictions(file).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(JsonlLineError);
    expect((error as JsonlLineError).line).toBe(2);
    expect((error as JsonlLineError).message).toBe(
      `${file}:2: t__t-2: found_related_locs: a.py: "line: 9-3": start line 9 is after end line 3`,
    );
  });

  it("with onBadLine skip, reports the bad lines and reads the rest", async () => {
    const file = jsonl(rows);
    const { predictions, report } = await readAgentlessPredictions(file, { onBadLine: "skip" });
    expect(predictions.map((p) => p.instanceId)).toEqual(["t__t-1", "t__t-4"]);
    expect(report.records).toBe(2);
    expect(report.skipped.map((error) => error.line)).toEqual([2, 3, 4]);
    expect(report.skipped[2]?.message).toBe(
      `${file}:4: t__t-3: found_related_locs: a.py: "line: 0": line numbers start at 1`,
    );
  });

  it("names file:line for a row of the wrong shape", async () => {
    const file = jsonl([{ instance_id: "t__t-1", ranked_files: "a.py" }]);
    await expect(readBlagentPredictions(file)).rejects.toThrow(
      `${file}:1: t__t-1: ranked_files: Invalid input: expected array, received string`,
    );
  });

  it("refuses a loclab span with start > end, naming the instance", async () => {
    const file = jsonl([
      stampRecord({ instanceId: "t__t-1", files: ["a.py"], locations: [{ path: "a.py", startLine: 8, endLine: 2 }] }),
    ]);
    await expect(readLoclabPredictions(file)).rejects.toThrow(
      `${file}:1: t__t-1: locations.0.endLine: startLine must not be greater than endLine`,
    );
  });
});

describe("loclab format", () => {
  it("reads stamped predictions, with defaults, and normalizes them", async () => {
    const file = jsonl([
      stampRecord({
        instanceId: "t__t-1",
        files: ["./a.py", "a.py"],
        functions: ["a.py:f"],
        locations: [{ path: "./a.py", startLine: 1, endLine: 2, role: "read" as const }],
      }),
      stampRecord({ instanceId: "t__t-2", files: [] }),
    ]);
    const { predictions, report } = await readLoclabPredictions(file);
    expect(predictions).toEqual([
      {
        instanceId: "t__t-1",
        files: ["a.py"],
        functions: ["a.py:f"],
        locations: [{ path: "a.py", startLine: 1, endLine: 2, role: "read" }],
      },
      { instanceId: "t__t-2", files: [], locations: [] },
    ]);
    expect(report).toMatchObject({ format: "loclab", records: 2, duplicatesRemoved: 1, pathsNormalized: 2 });
  });

  it("requires schemaVersion, with a message that says why", async () => {
    const file = jsonl([{ instanceId: "t__t-1", files: ["a.py"] }]);
    await expect(readLoclabPredictions(file)).rejects.toThrow(
      `${file}:1: t__t-1: schemaVersion: missing: every line of a loclab predictions file carries "schemaVersion": 1 (written by stampRecord); for another tool's output choose its format (locagent, agentless, blagent)`,
    );
    const wrong = jsonl([{ schemaVersion: 2, instanceId: "t__t-1", files: ["a.py"] }]);
    await expect(readLoclabPredictions(wrong)).rejects.toThrow(
      `${wrong}:1: t__t-1: schemaVersion: Invalid input: expected 1`,
    );
  });
});

describe("readPredictions", () => {
  it("dispatches on the format and refuses an unknown one", async () => {
    const file = jsonl([{ instance_id: "t__t-1", ranked_files: ["a.py"], found_files: ["b.py"] }]);
    expect((await readPredictions(file, { format: "blagent" })).predictions[0]?.files).toEqual(["a.py"]);
    expect((await readPredictions(file, { format: "agentless" })).predictions[0]?.files).toEqual(["b.py"]);
    await expect(readPredictions(file, { format: "swe-agent" as never })).rejects.toThrow(
      'unknown predictions format "swe-agent": expected one of locagent, agentless, blagent, loclab',
    );
  });
});
