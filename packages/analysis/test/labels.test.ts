import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  combineResolvedLabels,
  findResolvedLabels,
  labelDisagreements,
  readResolvedLabels,
  resolvedLabelSourceFromJson,
  resolvedOf,
} from "../src/index.js";
import { scratchDir } from "./fixtures.js";

// Resolved labels from every kind of file, by shape, and how several sources combine.

describe("resolvedLabelSourceFromJson", () => {
  it("recognises a SWE-bench / sb-cli run report by resolved_ids", () => {
    const source = resolvedLabelSourceFromJson(
      { resolved_ids: ["a__a-1"], unresolved_ids: ["a__a-2"], completed_ids: ["a__a-1", "a__a-2"] },
      { source: "r.json" },
    );
    expect(source).toMatchObject({ kind: "run-report", covers: "all" });
    expect([...(source?.resolved ?? [])]).toEqual(["a__a-1"]);
  });

  it("reads loclab's evaluation output: an infrastructure failure decides nothing (neither resolved nor unresolved), in the summary and in its report.json", () => {
    const dir = scratchDir("loclab-evaluation");
    const instance = (id: string, report: object) => {
      mkdirSync(join(dir, "logs", "run_evaluation", "r", "m", id), { recursive: true });
      writeFileSync(join(dir, "logs", "run_evaluation", "r", "m", id, "report.json"), JSON.stringify({ [id]: report }));
    };
    instance("a__a-1", { patch_is_None: false, patch_exists: true, patch_successfully_applied: true, resolved: true });
    instance("a__a-2", { patch_is_None: false, patch_exists: true, patch_successfully_applied: true, resolved: false });
    instance("a__a-3", {
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: false,
      resolved: false,
      infra_failure: true,
      infra_failure_reason: "timeout: over 1800 s",
    });
    const summary = {
      resolved_ids: ["a__a-1"],
      unresolved_ids: ["a__a-2"],
      empty_patch_ids: [],
      incomplete_ids: ["a__a-4"],
      error_ids: ["a__a-3"],
      infra_failures: { "a__a-3": { reason: "timeout", detail: "" } },
      schema_version: 2,
    };
    writeFileSync(join(dir, "m.r.json"), JSON.stringify(summary));
    const fromSummary = resolvedLabelSourceFromJson(summary, { source: "m.r.json" })!;
    expect([...(fromSummary.covers as Set<string>)].sort()).toEqual(["a__a-1", "a__a-2", "a__a-4"]);
    return Promise.all([
      findResolvedLabels(dir),
      findResolvedLabels(join(dir, "logs", "run_evaluation", "r", "m")),
    ]).then(([run, reports]) => {
      expect(["a__a-1", "a__a-2", "a__a-3", "a__a-4"].map((id) => resolvedOf(run.labels!, id))).toEqual([
        true,
        false,
        undefined,
        false,
      ]);
      // The per-instance reports alone (the model's folder): a task without a report is unknown too.
      expect(["a__a-1", "a__a-2", "a__a-3", "a__a-4"].map((id) => resolvedOf(reports.labels!, id))).toEqual([
        true,
        false,
        undefined,
        undefined,
      ]);
    });
  });

  it("recognises results.json-style resolved lists (SWE-bench experiments, AutoCodeRover, SWE-agent final_report)", () => {
    expect(
      resolvedLabelSourceFromJson({ resolved: ["a__a-1"], applied: ["a__a-1", "a__a-2"] }, { source: "results.json" })
        ?.kind,
    ).toBe("results");
  });

  it("recognises per-instance reports, bare (id from the folder) or keyed by id", () => {
    const bare = resolvedLabelSourceFromJson(
      { patch_is_None: false, resolved: true },
      { source: "logs/a__a-1/report.json", instanceId: "a__a-1" },
    );
    expect(bare).toMatchObject({ kind: "instance-report" });
    expect([...(bare?.covers as Set<string>)]).toEqual(["a__a-1"]);
    expect(resolvedLabelSourceFromJson({ resolved: true }, { source: "x.json" })).toBeUndefined();
    const nested = resolvedLabelSourceFromJson(
      { "a__a-2": { resolved: false, tests_status: {} } },
      { source: "report.json" },
    );
    expect(nested).toMatchObject({ kind: "instance-report" });
    expect(nested?.resolved.size).toBe(0);
  });

  it("recognises a run summary (instances[].resolved) and ignores other JSON", () => {
    const summary = resolvedLabelSourceFromJson(
      {
        total: 2,
        instances: [
          { instance_id: "a__a-1", resolved: true },
          { instance_id: "a__a-2", resolved: false },
        ],
      },
      { source: "results_summary.json" },
    );
    expect(summary).toMatchObject({ kind: "run-summary" });
    expect([...(summary?.covers as Set<string>)]).toEqual(["a__a-1", "a__a-2"]);
    expect(resolvedLabelSourceFromJson({ num_tasks: 300 }, { source: "stats.json" })).toBeUndefined();
    expect(resolvedLabelSourceFromJson([1, 2], { source: "list.json" })).toBeUndefined();
  });
});

describe("combining sources", () => {
  it("lets the most specific source decide, and lists disagreements", () => {
    const labels = combineResolvedLabels([
      { kind: "run-report", source: "run.json", resolved: new Set(["a__a-1", "a__a-2"]), covers: "all" },
      { kind: "instance-report", source: "logs/a__a-2/report.json", resolved: new Set(), covers: new Set(["a__a-2"]) },
      {
        kind: "instance-report",
        source: "logs/a__a-3/report.json",
        resolved: new Set(["a__a-3"]),
        covers: new Set(["a__a-3"]),
      },
    ]);
    expect(labels.sources.map((s) => s.kind)).toEqual(["instance-report", "run-report"]);
    expect(["a__a-1", "a__a-2", "a__a-3", "a__a-4"].map((id) => resolvedOf(labels, id))).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(labelDisagreements(labels, ["a__a-1", "a__a-2", "a__a-3"])).toEqual([
      {
        instanceId: "a__a-2",
        resolvedIn: ["run.json"],
        unresolvedIn: ["2 per-instance report.json files (e.g. logs/a__a-2/report.json)"],
      },
      {
        instanceId: "a__a-3",
        resolvedIn: ["2 per-instance report.json files (e.g. logs/a__a-2/report.json)"],
        unresolvedIn: ["run.json"],
      },
    ]);
  });
});

describe("reading label files", () => {
  const dir = scratchDir("labels");
  const csv = join(dir, "matrix.csv");
  writeFileSync(csv, "instance_id,sysA,sysB\r\na__a-1,1,0\r\na__a-2,0,1\r\n");
  const single = join(dir, "single.csv");
  writeFileSync(single, "instance_id,only\na__a-1,0\na__a-2,1\n");

  it("takes the CSV column named after the run, the only column, or FILE#column", async () => {
    expect(resolvedOf(await readResolvedLabels(csv, { column: "sysB" }), "a__a-2")).toBe(true);
    expect(resolvedOf(await readResolvedLabels(`${csv}#sysA`), "a__a-1")).toBe(true);
    expect(resolvedOf(await readResolvedLabels(single, { column: "whatever" }), "a__a-2")).toBe(true);
    await expect(readResolvedLabels(csv, { column: "sysC" })).rejects.toThrow(
      `${csv} has 2 system columns and none named "sysC": pick one with ${csv}#COLUMN`,
    );
  });

  it("reads a JSON label file, and refuses one that is not", async () => {
    const report = join(dir, "report.json");
    writeFileSync(report, JSON.stringify({ resolved: ["a__a-1"] }));
    expect(resolvedOf(await readResolvedLabels(report), "a__a-1")).toBe(true);
    const other = join(dir, "other.json");
    writeFileSync(other, JSON.stringify({ hello: 1 }));
    await expect(readResolvedLabels(other)).rejects.toThrow("not a resolved-label file");
    await expect(readResolvedLabels(join(dir, "missing.json"))).rejects.toThrow("ENOENT");
  });

  it("finds label files inside a run folder, skipping trajectories, and reports unreadable ones", async () => {
    const run = join(dir, "run");
    mkdirSync(join(run, "x__x-1"), { recursive: true });
    writeFileSync(join(run, "x__x-1", "x__x-1.traj.json"), JSON.stringify({ resolved_ids: ["never read"] }));
    writeFileSync(join(run, "preds.json"), "{}");
    writeFileSync(join(run, "broken.json"), "{");
    writeFileSync(join(run, "model.run.json"), JSON.stringify({ resolved_ids: ["x__x-1"] }));
    const found = await findResolvedLabels(run);
    expect(found.labels?.sources.map((s) => s.source)).toEqual([join(run, "model.run.json")]);
    expect(found.problems).toHaveLength(1);
    expect(found.problems[0]?.path).toBe(join(run, "broken.json"));
    expect((await findResolvedLabels(join(run, "x__x-1"))).labels).toBeNull();
  });
});
