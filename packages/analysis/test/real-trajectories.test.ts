import { resolveDataDir } from "@loclab/datasets";
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeRealTrajectories, breakdownJson, type RealTrajectoryAnalysis } from "../src/index.js";

// The four real runs of shared/data/trajectories (read in place) on their 41 common tasks.
// Solved counts must equal the resolved ids manifest.json lists for each system. The other
// columns were recounted independently with a short Python script over the raw files (counted
// calls: mini-swe-agent tool calls / single bash blocks without the submit command, SWE-agent
// actions but submit and exit_*, AutoCodeRover tool_call_sequence entries).

let analysis: RealTrajectoryAnalysis;
beforeAll(async () => {
  analysis = await analyzeRealTrajectories({ dataDir: resolveDataDir() });
});

describe("the four real runs", () => {
  it("read every file of the 41 tasks without a problem", () => {
    expect(analysis.taskIds).toHaveLength(41);
    expect(analysis.problems).toEqual([]);
    expect(analysis.runs.map((run) => [run.name, run.files])).toEqual([
      ["mini-swe-agent_deepseek-chat_lite", 41],
      ["mini-swe-agent_gemini-3-pro_verified", 41],
      ["swe-agent_gpt4_lite", 41],
      ["autocoderover_gpt4_lite", 41],
    ]);
    expect(analysis.runs.map((run) => run.summaries[0]?.format)).toEqual([
      "mini-swe-agent-2",
      "mini-swe-agent-1",
      "swe-agent",
      "autocoderover",
    ]);
  });

  it("solve exactly the tasks manifest.json lists for each system", () => {
    expect(
      analysis.manifestCheck.map(({ run, expected, solved, agrees }) => ({ run, expected, solved, agrees })),
    ).toEqual([
      { run: "mini-swe-agent_deepseek-chat_lite", expected: 33, solved: 33, agrees: true },
      { run: "mini-swe-agent_gemini-3-pro_verified", expected: 32, solved: 32, agrees: true },
      { run: "swe-agent_gpt4_lite", expected: 6, solved: 6, agrees: true },
      { run: "autocoderover_gpt4_lite", expected: 12, solved: 12, agrees: true },
    ]);
  });

  it("give the whole table", () => {
    const json = breakdownJson(analysis.breakdown);
    expect(json.base).toBe("swe-agent_gpt4_lite");
    const table = json.runs.map(
      ({ run, tasks, solved, outOfBudget, wrongPatch, noPatch, medianCalls, loops, badPrefix, noFile, vsBase }) => [
        run,
        tasks,
        solved,
        outOfBudget,
        wrongPatch,
        noPatch,
        medianCalls,
        loops,
        badPrefix,
        noFile,
        vsBase && [vsBase.baseOnly, vsBase.runOnly],
      ],
    );
    expect(table).toEqual([
      ["mini-swe-agent_deepseek-chat_lite", 41, 33, 0, 8, 0, 72, 0, 0, 0, [0, 27]],
      ["mini-swe-agent_gemini-3-pro_verified", 41, 32, 0, 9, 0, 29, 0, 0, 0, [1, 27]],
      ["swe-agent_gpt4_lite", 41, 6, 0, 30, 5, 9, 0, 0, 0, null],
      ["autocoderover_gpt4_lite", 41, 12, 6, 22, 1, 7, 0, 0, 0, [2, 8]],
    ]);
    // Exact McNemar: 0/27 → 2^-26; 1/27 → 2·29/2^28; 2/8 → 2·56/2^10.
    expect(json.runs[0]?.vsBase?.p).toBeCloseTo(2 ** -26, 20);
    expect(json.runs[1]?.vsBase?.p).toBeCloseTo((2 * 29) / 2 ** 28, 18);
    expect(json.runs[3]?.vsBase?.p).toBeCloseTo(0.109375, 14);
  });

  it("explain the non-obvious counts by their rules", () => {
    const [deepseek, gemini, swe, acr] = analysis.breakdown.rows;
    expect(deepseek?.exitStatuses).toEqual({ Submitted: 41 });
    expect(gemini?.exitStatuses).toEqual({ Submitted: 41 });
    // SWE-agent: two early exits (environment restart) and two trajectories without an exit status
    // are no patch, as is django__django-15695, submitted with an empty submission.
    expect(swe?.exitStatuses).toEqual({ submitted: 37, early_exit: 2, "(none)": 2 });
    expect(swe?.ids.noPatch).toEqual([
      "django__django-13158",
      "django__django-13315",
      "django__django-14672",
      "django__django-14915",
      "django__django-15695",
    ]);
    // AutoCodeRover: the six tasks whose retrieval loop used all 10 rounds (conversation_round_11)
    // are out of budget; five of them never produced an applicable patch, one did (and failed).
    expect(acr?.ids.outOfBudget).toEqual([
      "django__django-11815",
      "django__django-11964",
      "django__django-12125",
      "django__django-13033",
      "django__django-13925",
      "django__django-13964",
    ]);
    expect(acr?.ids.noPatch).toEqual(["django__django-14580"]);
  });

  it("give the overlap of solved sets and their union", () => {
    const { overlap, everSolved } = analysis.breakdown;
    expect(overlap.both).toEqual([
      [33, 28, 6, 11],
      [28, 32, 5, 12],
      [6, 5, 6, 4],
      [11, 12, 4, 12],
    ]);
    // Independently from manifest.json: the union of resolved_in_extracted over the 41 tasks.
    expect(everSolved).toBe(37);
    expect(analysis.taskIds.filter((id) => !analysis.breakdown.everSolvedIds.includes(id))).toEqual([
      "django__django-14155",
      "django__django-14534",
      "django__django-15252",
      "django__django-15695",
    ]);
  });
});
