import type { Prediction } from "@loclab/schemas";
import { afterEach, describe, expect, it } from "vitest";
import {
  createModelClient,
  judgeFinding,
  type Judgement,
  type ModelScript,
  renderFindingForRepair,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "../src/index.js";
import { FIXTURE_ISSUE } from "./fixture-repo.js";

// The judge over real HTTP to the scripted server.
let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const prediction: Prediction = {
  instanceId: "acme__calc-1",
  files: ["calc/ops.py"],
  locations: [{ path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit", symbol: "average" }],
  finding: {
    locationExplanation: "average computes the mean the issue reports as wrong.",
    rootCause: "It divides the sum by len(values) - 1 instead of len(values).",
    solutionIdea: "Divide by len(values).",
    dependencies: "calc/cli.py prints average's result.",
    testingImpact: "Add a test of average to tests/test_ops.py.",
  },
};
const scores = (r: number, l: number, s: number, extra = "") => ({
  content: `${extra}\`\`\`json\n${JSON.stringify({ rootCauseCorrectness: r, locationAccuracy: l, solutionActionability: s, rationale: "Checked against the issue." })}\n\`\`\``,
});

async function judge(script: ModelScript, threshold?: number) {
  server = await startScriptedModelServer({ script });
  const client = createModelClient({
    baseURL: server.url,
    model: "judge-model",
    backoffMs: 1,
    timeoutMs: 5_000,
    maxRetries: 0,
  });
  const judgement = await judgeFinding({
    client,
    instance: FIXTURE_ISSUE,
    prediction,
    ...(threshold !== undefined ? { threshold } : {}),
  });
  return { judgement, requests: server.requests.flatMap((request) => (request.body ? [request.body] : [])) };
}

describe("judgeFinding", () => {
  it("scores the three criteria; composite is the mean; 4.33 passes the default 4.0", async () => {
    const { judgement, requests } = await judge([scores(5, 4, 4, "Looks right.\n")]);
    expect(judgement).toMatchObject({
      status: "judged",
      scores: { rootCauseCorrectness: 5, locationAccuracy: 4, solutionActionability: 4 },
      threshold: 4,
      passes: true,
      repaired: false,
      rationale: "Checked against the issue.",
    });
    expect(judgement.status === "judged" && judgement.composite).toBeCloseTo(13 / 3, 10);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.tools).toBeUndefined();
    const prompt = String(requests[0]?.messages[0]?.content);
    expect(prompt).toContain(FIXTURE_ISSUE.problem_statement);
    expect(prompt).toContain("- calc/ops.py:8-12 (edit, average)");
    expect(prompt).toContain("Root cause: It divides the sum by len(values) - 1");
    expect(prompt).not.toContain("{{");
  });

  it("a composite below the threshold does not pass; exactly at the threshold does", async () => {
    expect((await judge([scores(4, 4, 3)])).judgement).toMatchObject({ status: "judged", passes: false });
    await server?.close();
    expect((await judge([scores(4, 4, 4)])).judgement).toMatchObject({ status: "judged", composite: 4, passes: true });
    await server?.close();
    expect((await judge([scores(4, 4, 4)], 4.5)).judgement).toMatchObject({
      status: "judged",
      passes: false,
      threshold: 4.5,
    });
  });

  it("invalid JSON gets one repair request naming the problem; a valid second answer is used", async () => {
    const { judgement, requests } = await judge([{ content: "I would rate it 5/5." }, scores(5, 5, 4)]);
    expect(judgement).toMatchObject({ status: "judged", passes: true, repaired: true });
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.at(-2)).toEqual({ role: "assistant", content: "I would rate it 5/5." });
    expect(requests[1]?.messages.at(-1)?.content).toContain("the answer is not valid JSON");
  });

  it("two unusable answers are a typed failure (invalid_answer) that never passes", async () => {
    const { judgement, requests } = await judge([
      { content: '{"rootCauseCorrectness": 7, "locationAccuracy": 4, "solutionActionability": 4, "rationale": "x"}' },
      { content: '{"rootCauseCorrectness": 5}' },
    ]);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.at(-1)?.content).toContain("rootCauseCorrectness: Too big");
    expect(judgement).toMatchObject({
      status: "invalid_answer",
      passes: false,
      error: expect.stringContaining("locationAccuracy"),
    });
  });

  it("a model error is a typed failure, not a throw", async () => {
    const { judgement } = await judge([{ fault: "http-503" }]);
    expect(judgement).toMatchObject({
      status: "model_error",
      passes: false,
      error: expect.stringContaining("http-5xx"),
    });
  });
});

describe("renderFindingForRepair", () => {
  const judged = (passes: boolean): Judgement => ({
    status: "judged",
    scores: { rootCauseCorrectness: 4, locationAccuracy: 4, solutionActionability: 4 },
    rationale: "r",
    composite: passes ? 4 : 3,
    threshold: 4,
    passes,
    repaired: false,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  });

  it("renders the locations and five fields when the finding passes (or without a judgement)", () => {
    const text = renderFindingForRepair(prediction, judged(true));
    expect(text).toBe(
      [
        "## Localization finding",
        "",
        "A localization agent examined the repository for this issue. Its finding:",
        "",
        "Locations (best first):",
        "- calc/ops.py:8-12 (edit, average)",
        "",
        "Root cause: It divides the sum by len(values) - 1 instead of len(values).",
        "Location explanation: average computes the mean the issue reports as wrong.",
        "Solution idea: Divide by len(values).",
        "Dependencies: calc/cli.py prints average's result.",
        "Testing impact: Add a test of average to tests/test_ops.py.",
        "",
      ].join("\n"),
    );
    expect(renderFindingForRepair(prediction)).toBe(text);
  });

  it("is empty when filtered out, when judging failed, or when there is no finding", () => {
    expect(renderFindingForRepair(prediction, judged(false))).toBe("");
    expect(
      renderFindingForRepair(prediction, {
        status: "invalid_answer",
        passes: false,
        error: "x",
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      }),
    ).toBe("");
    const { finding: _finding, ...bare } = prediction;
    expect(renderFindingForRepair(bare)).toBe("");
  });
});
