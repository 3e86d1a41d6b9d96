import { beforeAll, describe, expect, it } from "vitest";
import { type BreakdownOptions, breakdownRun, breakdownRuns, readRun, type RunRead, runInputOf } from "../src/index.js";
import {
  REPOSITORY_FILES,
  scratchDir,
  writeAutoCodeRoverRun,
  writeLoclabRun,
  writeMini1Run,
  writeMini2Run,
  writeSweAgentRun,
} from "./fixtures.js";

// Every breakdown column on hand-made runs of every format, with the counts fixtures.ts states.

let mini2: RunRead;
let mini1: RunRead;
let swe: RunRead;
let acr: RunRead;
let loclab: RunRead;

beforeAll(async () => {
  const root = scratchDir("breakdown");
  mini2 = await readRun({ name: "mini2", format: "mini-swe-agent", dir: writeMini2Run(root) });
  mini1 = await readRun({ name: "mini1", format: "mini-swe-agent", dir: writeMini1Run(root) });
  swe = await readRun({ name: "swe", format: "swe-agent", dir: writeSweAgentRun(root) });
  acr = await readRun({ name: "acr", format: "autocoderover", dir: writeAutoCodeRoverRun(root) });
  const loclabRun = writeLoclabRun(root);
  loclab = await readRun({ name: "loclab", format: "loclab", dir: loclabRun.dir, resolved: loclabRun.matrix });
});

const row = (run: RunRead, options: BreakdownOptions = {}) => breakdownRun(runInputOf(run), options);
const columns = (r: ReturnType<typeof row>) => ({
  tasks: r.tasks,
  solved: r.solved,
  outOfBudget: r.outOfBudget,
  wrongPatch: r.wrongPatch,
  noPatch: r.noPatch,
  medianCalls: r.medianCalls,
  loops: r.loops,
  loopsFinishLength: r.loopsFinishLength,
  loopsRepeatedLine: r.loopsRepeatedLine,
  badPrefix: r.badPrefix,
  noFile: r.noFile,
});

describe("mini-swe-agent 2.x run", () => {
  it("has the known counts in every column", () => {
    const r = row(mini2);
    expect(columns(r)).toEqual({
      tasks: 6,
      solved: 1,
      outOfBudget: 3,
      wrongPatch: 1,
      noPatch: 1,
      medianCalls: 2.5,
      loops: 2,
      loopsFinishLength: 1,
      loopsRepeatedLine: 1,
      badPrefix: 1,
      noFile: 1,
    });
    expect(r.ids).toMatchObject({
      solved: ["m2__a-1"],
      outOfBudget: ["m2__a-2", "m2__a-5", "m2__a-6"],
      wrongPatch: ["m2__a-3"],
      noPatch: ["m2__a-4"],
      loopsFinishLength: ["m2__a-2"],
      loopsRepeatedLine: ["m2__a-3"],
      badPrefix: ["m2__a-3"],
      noFile: ["m2__a-3"],
    });
    expect(r.budgetRules).toEqual({
      "mini-swe-agent: exit LimitsExceeded with api_calls ≥ step_limit": 1,
      "mini-swe-agent: exit LimitsExceeded below step_limit, so cost_limit": 1,
      "mini-swe-agent: exit ContextWindowExceededError": 1,
    });
    expect(r.loopSeconds).toBe(35);
    expect(r.loopTokens).toBe(4146);
  });

  it("gives time and tokens per category where the log has them", () => {
    const r = row(mini2);
    expect(r.perCategory.solved).toEqual({
      tasks: 1,
      seconds: { total: 10, median: 10, tasks: 1 },
      tokens: { total: 330, median: 330, tasks: 1 },
      costUsd: { total: 0.3, median: 0.3, tasks: 1 },
    });
    expect(r.perCategory.outOfBudget.seconds).toEqual({ total: 43, median: 43, tasks: 1 });
    expect(r.perCategory.outOfBudget.tasks).toBe(3);
  });

  it("reports the file that does not parse, with its reason, and analyses the rest", () => {
    expect(mini2.problems).toHaveLength(1);
    expect(mini2.problems[0]?.path).toMatch(/m2__a-7\.traj\.json$/);
    expect(mini2.problems[0]?.reason).toMatch(/not valid JSON/);
    expect(mini2.summaries).toHaveLength(6);
  });

  it("makes the no-file threshold and the repeated-line count configurable", () => {
    expect(row(mini2, { noFileThreshold: 6 }).noFile).toBe(0);
    expect(row(mini2, { loops: { repeatedLine: 7 } }).loopsRepeatedLine).toBe(0);
    expect(row(mini2, { loops: { finishReasons: ["stop"] } }).loopsFinishLength).toBe(0);
    expect(row(mini2, { badPathPrefixes: [] }).badPrefix).toBe(0);
    expect(() => row(mini2, { loops: { repeatedLine: 2 } })).toThrow(
      "loops.repeatedLine must be an integer ≥ 3, got 2",
    );
  });
});

describe("mini-swe-agent 1.x run", () => {
  it("has the known counts in every column", () => {
    const r = row(mini1);
    expect(columns(r)).toEqual({
      tasks: 4,
      solved: 1,
      outOfBudget: 1,
      wrongPatch: 1,
      noPatch: 1,
      medianCalls: 2.5,
      loops: 2,
      loopsFinishLength: 1,
      loopsRepeatedLine: 1,
      badPrefix: 1,
      noFile: 1,
    });
    expect(r.ids).toMatchObject({
      noPatch: ["m1__b-4"],
      loopsFinishLength: ["m1__b-2"],
      loopsRepeatedLine: ["m1__b-4"],
      badPrefix: ["m1__b-4"],
      noFile: ["m1__b-4"],
    });
    // 1.x logs only when each request started: an output cost the time until the next request
    // (b-2's cut output 60 s, b-4's repeating one 10 s).
    expect(r.loopSeconds).toBe(70);
    expect(r.perCategory.solved.seconds.total).toBe(30);
    expect(row(mini1, { noFileThreshold: 4 }).ids.noFile).toEqual(["m1__b-3", "m1__b-4"]);
  });

  it("takes labels from per-instance report.json files and the run summary, most specific first", () => {
    expect(mini1.labels?.sources.map((s) => s.kind)).toEqual(["instance-report", "run-summary"]);
    expect(mini1.problems).toEqual([]);
  });
});

describe("SWE-agent run", () => {
  it("has the known counts in every column", () => {
    const r = row(swe);
    expect(columns(r)).toEqual({
      tasks: 6,
      solved: 1,
      outOfBudget: 2,
      wrongPatch: 1,
      noPatch: 2,
      medianCalls: 2,
      loops: 1,
      loopsFinishLength: 0,
      loopsRepeatedLine: 1,
      badPrefix: 1,
      noFile: 1,
    });
    expect(r.ids).toMatchObject({
      outOfBudget: ["s__c-2", "s__c-3"],
      wrongPatch: ["s__c-6"],
      noPatch: ["s__c-4", "s__c-5"],
      loopsRepeatedLine: ["s__c-3"],
      badPrefix: ["s__c-6"],
      noFile: ["s__c-4"],
    });
    expect(r.loopSeconds).toBeNull();
    expect(r.budgetRules).toEqual({
      'SWE-agent: exit status "submitted (exit_cost)" (per-instance cost limit)': 1,
      'SWE-agent: exit status "exit_context" (context window)': 1,
    });
    expect(r.exitStatuses).toEqual({
      submitted: 2,
      "submitted (exit_cost)": 1,
      exit_context: 1,
      early_exit: 1,
      "(none)": 1,
    });
    expect(r.perCategory.solved.seconds).toEqual({ total: 0, median: null, tasks: 0 });
    expect(r.perCategory.solved.tokens).toEqual({ total: 4400, median: 4400, tasks: 1 });
  });
});

describe("AutoCodeRover run", () => {
  it("has the known counts in every column", () => {
    const r = row(acr);
    expect(columns(r)).toEqual({
      tasks: 4,
      solved: 1,
      outOfBudget: 1,
      wrongPatch: 1,
      noPatch: 1,
      medianCalls: 2.5,
      loops: 1,
      loopsFinishLength: 0,
      loopsRepeatedLine: 1,
      badPrefix: 0,
      noFile: 0,
    });
    expect(r.ids).toMatchObject({ outOfBudget: ["a__d-3"], loopsRepeatedLine: ["a__d-4"] });
    expect(r.perCategory.solved.seconds.total).toBe(100);
  });

  it("keeps the later of two folders of one instance and reports the other", () => {
    expect(acr.problems).toHaveLength(1);
    expect(acr.problems[0]?.path).toMatch(/raw_patch_but_unparsed\/a__d-4_2024-04-06_12-00-00$/);
    expect(acr.summaries.find((s) => s.instanceId === "a__d-4")?.source).toMatch(/13-30-00$/);
  });

  it("uses the round limit given, and finds bad paths when the repository's files are known", () => {
    expect(row(acr, { autoCodeRoverRoundLimit: 11 }).outOfBudget).toBe(0);
    expect(row(acr, { repositoryFiles: (id) => REPOSITORY_FILES[id] }).ids.badPrefix).toEqual(["a__d-2"]);
  });
});

describe("loclab run", () => {
  it("has the known counts in every column", () => {
    const r = row(loclab);
    expect(columns(r)).toEqual({
      tasks: 5,
      solved: 1,
      outOfBudget: 1,
      wrongPatch: 1,
      noPatch: 2,
      medianCalls: 3,
      loops: 2,
      loopsFinishLength: 1,
      loopsRepeatedLine: 1,
      badPrefix: 1,
      noFile: 1,
    });
    expect(r.ids).toMatchObject({
      loopsFinishLength: ["l__e-3"],
      loopsRepeatedLine: ["l__e-5"],
      badPrefix: ["l__e-4"],
      noFile: ["l__e-2"],
    });
    expect(r.loopSeconds).toBe(20);
    expect(r.loopTokens).toBe(8192);
    expect(r.perCategory.solved).toMatchObject({ seconds: { total: 40 }, tokens: { total: 2150 } });
  });

  it("applies a call budget, a set of counted tools, and the file-list rule (own files exempt)", () => {
    expect(row(loclab, { callBudget: 4 }).ids.outOfBudget).toEqual(["l__e-2", "l__e-5"]);
    expect(row(loclab, { calls: { only: ["run_command", "read_file", "edit_file", "write_file"] } }).medianCalls).toBe(
      3,
    );
    expect(row(loclab, { calls: { except: [] } }).medianCalls).toBe(4);
    expect(row(loclab, { repositoryFiles: (id) => REPOSITORY_FILES[id] }).ids.badPrefix).toEqual(["l__e-3", "l__e-4"]);
  });

  it("reads the labels' column named after the run", () => {
    expect(loclab.labels?.sources[0]?.source).toMatch(/loclab-resolved\.csv#loclab$/);
  });
});

describe("breakdownRuns", () => {
  it("restricts every run to a task list: missing tasks count as no patch unless labelled solved", () => {
    const b = breakdownRuns([runInputOf(mini2, { taskIds: ["m2__a-1", "m2__a-3", "m2__a-9"] })], {
      taskIds: ["m2__a-1", "m2__a-3", "m2__a-9"],
    });
    expect(b.rows[0]).toMatchObject({ tasks: 3, solved: 1, wrongPatch: 1, noPatch: 1, missing: 1 });
    expect(b.rows[0]?.ids.missing).toEqual(["m2__a-9"]);
    const labelled = breakdownRuns([{ name: "x", summaries: [], resolved: new Set(["m2__a-9"]) }], {
      taskIds: ["m2__a-9"],
    });
    expect(labelled.rows[0]).toMatchObject({ solved: 1, missing: 1, medianCalls: null });
  });

  it("refuses a run without labels, and a base that is not a run", () => {
    expect(() => runInputOf({ ...mini2, labels: null })).toThrow("no resolved labels for run mini2");
    expect(() => breakdownRuns([runInputOf(mini2)], { base: "nope" })).toThrow(
      'the base "nope" is not one of the runs (mini2)',
    );
  });
});
