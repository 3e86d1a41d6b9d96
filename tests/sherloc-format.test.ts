import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listSherlocLines, readRun, readTrajectory } from "@loclab/analysis";
import { readSherlocPredictions } from "@loclab/predictions";
import { parseSherlocFindings, parseSherlocLocations, sherlocFindingsText } from "@loclab/schemas";
import { scorePredictionsFile } from "@loclab/scoring";
import { describe, expect, it } from "vitest";

// SHERLOC's output format: its `<locations>`/`<findings>` parsing checked against the official
// DialogProcessor (tests/fixtures/sherloc/reference.json, "answers"), and a crafted generation
// file in its shape (tests/fixtures/sherloc/output.jsonl: a success with tool calls and a
// five-field finding, a max_steps_exceeded failure with a loop intervention, a null line, a
// skipped instance, a success with a `{raw}` line) read by the predictions reader, both
// presets and the trajectory analysis.

const here = join(import.meta.dirname, "fixtures", "sherloc");
const output = join(here, "output.jsonl");
const fixture = JSON.parse(readFileSync(join(here, "reference.json"), "utf8")) as {
  answers: Record<string, { text: string; locations: unknown[]; findings: string | null }>;
};

describe("SHERLOC's answer parsing = DialogProcessor (977d1fb)", () => {
  it.each(Object.keys(fixture.answers))("%s", (name) => {
    const answer = fixture.answers[name] as (typeof fixture.answers)[string];
    expect(parseSherlocLocations(answer.text)).toEqual(answer.locations);
    expect(sherlocFindingsText(answer.text)).toBe(answer.findings);
  });

  it("reads loclab's five-field finding from the prompt's bullets, and nothing from a partial one", () => {
    const text = sherlocFindingsText((fixture.answers["findings-five-fields"] as { text: string }).text);
    expect(parseSherlocFindings(text)).toEqual({
      locationExplanation: "the parser.",
      rootCause: "off by one.",
      solutionIdea: "add one.",
      dependencies: "none.",
      testingImpact: "test_parser.",
    });
    expect(parseSherlocFindings("• Root cause: x")).toBeUndefined();
    expect(
      parseSherlocFindings(
        "**Location explanation:** a\n**Root cause:** b\n- Solution idea: c\nDependencies: d\nTesting impact: e",
      ),
    ).toEqual({
      locationExplanation: "a",
      rootCause: "b",
      solutionIdea: "c",
      dependencies: "d",
      testingImpact: "e",
    });
  });
});

describe("a SHERLOC generation file", () => {
  it("is read as predictions: status and reason kept, raw locations kept for the sherloc preset, usable ranges for loclab's", async () => {
    const { predictions, report } = await readSherlocPredictions(output);
    expect(predictions.map((prediction) => [prediction.instanceId, prediction.status, prediction.reason])).toEqual([
      ["astropy__astropy-12907", "success", null],
      ["astropy__astropy-14182", "failed", "max_steps_exceeded"],
      ["astropy__astropy-14365", "skipped", "empty_problem_statement"],
      ["astropy__astropy-14995", "success", null],
    ]);
    expect(report.nullLines).toBe(1);
    expect(report.locationsWithoutRange).toBe(1);
    const last = predictions[3];
    expect(last?.sherlocLocations).toHaveLength(2);
    expect(last?.locations).toEqual([
      { path: "astropy/nddata/mixins/ndarithmetic.py", startLine: 512, endLine: 530, role: "edit" },
    ]);
    expect(predictions[0]?.finding?.rootCause).toBe(
      "for an ndarray right operand it assigns 1 instead of the operand's matrix.",
    );
    expect(predictions[0]?.files).toEqual(["astropy/modeling/separable.py"]);
  });

  it("is scored under both presets: the failed and skipped generations are 0 under sherloc, missing ones too", async () => {
    const sherloc = await scorePredictionsFile({
      benchmark: "lite",
      predictions: output,
      format: "sherloc",
      preset: "sherloc",
    });
    const unified = await scorePredictionsFile({
      benchmark: "lite",
      predictions: output,
      format: "sherloc",
      preset: "unified",
    });
    const at = (report: typeof sherloc.report, key: string, id: string) =>
      report.metrics[key]?.perInstance?.[report.instanceIds.indexOf(id)];
    expect(sherloc.report.preset).toBe("sherloc");
    expect(sherloc.report.n).toBe(300);
    expect(at(sherloc.report, "sherloc.file_recall", "astropy__astropy-12907")).toBe(1);
    // Two predicted ranges, one of which contains the single gold chunk (line 245).
    expect(at(sherloc.report, "sherloc.chunk_precision", "astropy__astropy-12907")).toBe(0.5);
    expect(at(sherloc.report, "sherloc.chunk_coverage_recall", "astropy__astropy-12907")).toBe(1);
    expect(at(sherloc.report, "sherloc.file_recall", "astropy__astropy-14182")).toBe(0);
    // The {raw} line is a predicted entry, but chunk precision counts ranges only: 1 of 1.
    expect(at(sherloc.report, "sherloc.chunk_precision", "astropy__astropy-14995")).toBe(1);
    expect(at(sherloc.report, "sherloc.file_precision", "astropy__astropy-14995")).toBe(1);
    expect("sherloc" in sherloc.report && sherloc.report.sherloc).toMatchObject({
      total_samples: 300,
      skipped_samples: 1,
      successful_samples: 3,
      failed_samples: 297,
    });
    expect(unified.report.preset).toBe("unified");
    expect(at(unified.report, "file.acc@1", "astropy__astropy-12907")).toBe(1);
  });

  it("is read by the trajectory analysis: one trajectory per line, turns as steps, SHERLOC's statuses and token counts", async () => {
    const lines = listSherlocLines(output);
    expect(lines.map((line) => line.instanceId)).toEqual([
      "astropy__astropy-12907",
      "astropy__astropy-14182",
      "astropy__astropy-14365",
      "astropy__astropy-14995",
    ]);
    const first = await readTrajectory((lines[0] as { path: string }).path, "sherloc");
    expect(first.steps.map((step) => step.toolCalls.map((call) => call.name))).toEqual([
      ["codebase_search"],
      ["view_file"],
      ["submit"],
    ]);
    expect(first.steps[1]?.toolCalls[0]?.arguments).toEqual({
      path: "astropy/modeling/separable.py",
      view_range: [219, 247],
    });
    expect(first.steps.map((step) => step.usage?.completionTokens)).toEqual([301, 211, 400]);
    expect(first.usage).toEqual({ completionTokens: 912, apiCalls: 3 });
    const run = await readRun({ name: "sherloc", format: "sherloc", dir: output });
    expect(run.problems).toEqual([]);
    expect(run.labels).toBeNull();
    const byId = new Map(run.summaries.map((summary) => [summary.instanceId, summary]));
    expect(byId.get("astropy__astropy-14182")?.exitStatus).toBe("failed (max_steps_exceeded)");
    expect(byId.get("astropy__astropy-14182")?.toolCalls).toEqual({ repo_tree: 2 });
    expect(byId.get("astropy__astropy-14365")?.steps).toBe(0);
    expect(byId.get("astropy__astropy-12907")?.completionTokens).toBe(912);
  });
});
