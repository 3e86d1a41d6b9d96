import type { Prediction } from "@loclab/schemas";
import { afterEach, describe, expect, it } from "vitest";
import {
  createModelClient,
  DEFAULT_JUDGE_RUBRIC,
  judgeFinding,
  type JudgeFindingOptions,
  judgeRubricDigest,
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
const grade = (score: number) => ({ feedback: `Earns ${score}: checked against the issue.`, score });
const scores = (r: number, l: number, s: number, extra = "") => ({
  content: `${extra}\`\`\`json\n${JSON.stringify({ rootCause: grade(r), location: grade(l), actionability: grade(s) })}\n\`\`\``,
});

async function judge(script: ModelScript, options: Partial<JudgeFindingOptions> = {}) {
  server = await startScriptedModelServer({ script });
  const client = createModelClient({
    baseURL: server.url,
    model: "judge-model",
    backoffMs: 1,
    timeoutMs: 5_000,
    maxRetries: 0,
  });
  const judgement = await judgeFinding({ client, instance: FIXTURE_ISSUE, prediction, ...options });
  return { judgement, requests: server.requests.flatMap((request) => (request.body ? [request.body] : [])) };
}

describe("judgeFinding", () => {
  it("grades each criterion of the rubric (feedback, then score); composite is the mean; 4.33 passes the default 4.0", async () => {
    const { judgement, requests } = await judge([scores(5, 4, 4, "Looks right.\n")]);
    expect(judgement).toMatchObject({
      status: "judged",
      scores: { rootCause: 5, location: 4, actionability: 4 },
      feedback: { rootCause: "Earns 5: checked against the issue." },
      threshold: 4,
      passes: true,
      repaired: false,
    });
    expect(judgement.answers).toEqual([scores(5, 4, 4, "Looks right.\n").content]);
    expect(judgement.status === "judged" && judgement.composite).toBeCloseTo(13 / 3, 10);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.tools).toBeUndefined();
    const prompt = String(requests[0]?.messages[0]?.content);
    expect(prompt).toContain(FIXTURE_ISSUE.problem_statement);
    expect(prompt).toContain("- calc/ops.py:8-12 (edit, average)");
    expect(prompt).toContain("Root cause: It divides the sum by len(values) - 1");
    // The rubric written out per score level, and the answer's shape with feedback before score.
    expect(prompt).toContain("### `rootCause`: Root cause correctness");
    expect(prompt).toContain(`- 5: ${DEFAULT_JUDGE_RUBRIC.criteria[1]!.levels["5"]}`);
    expect(prompt).toContain('{"rootCause": {"feedback": "…", "score": 1}, "location": {"feedback": "…", "score": 1}');
    // The model is never told which instance it judges.
    expect(prompt).not.toContain(FIXTURE_ISSUE.instance_id);
    expect(prompt).not.toContain("{{");
  });

  it("a composite below the threshold does not pass; exactly at the threshold does", async () => {
    expect((await judge([scores(4, 4, 3)])).judgement).toMatchObject({ status: "judged", passes: false });
    await server?.close();
    expect((await judge([scores(4, 4, 4)])).judgement).toMatchObject({ status: "judged", composite: 4, passes: true });
    await server?.close();
    expect((await judge([scores(4, 4, 4)], { threshold: 4.5 })).judgement).toMatchObject({
      status: "judged",
      passes: false,
      threshold: 4.5,
    });
  });

  it("weights choose the composite: root cause alone, or a rubric's own criterion", async () => {
    const alone = await judge([scores(5, 2, 2)], { weights: { rootCause: 1 } });
    expect(alone.judgement).toMatchObject({ status: "judged", composite: 5, passes: true });
    await server?.close();
    const rubric = {
      criteria: [...DEFAULT_JUDGE_RUBRIC.criteria, { ...DEFAULT_JUDGE_RUBRIC.criteria[0]!, id: "testing" }],
    };
    const answer = JSON.stringify({
      rootCause: grade(5),
      location: grade(4),
      actionability: grade(3),
      testing: grade(1),
    });
    const four = await judge([{ content: answer }], {
      rubric,
      weights: { rootCause: 1, location: 1, actionability: 1, testing: 1 },
    });
    expect(four.judgement).toMatchObject({ status: "judged", composite: 13 / 4, scores: { testing: 1 } });
    await server?.close();
    await expect(judge([scores(5, 5, 5)], { weights: { novelty: 1 } })).rejects.toThrow(
      /novelty, which the rubric does not score/,
    );
  });

  it("the digest changes with the rubric, not with the weights or threshold", async () => {
    const base = await judgeRubricDigest();
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(await judgeRubricDigest(DEFAULT_JUDGE_RUBRIC)).toBe(base);
    const changed = structuredClone(DEFAULT_JUDGE_RUBRIC);
    changed.criteria[0]!.levels["3"] = "Something else.";
    expect(await judgeRubricDigest(changed)).not.toBe(base);
  });

  it("invalid JSON gets one repair request naming the problem; a valid second answer is used", async () => {
    const { judgement, requests } = await judge([{ content: "I would rate it 5/5." }, scores(5, 5, 4)]);
    expect(judgement).toMatchObject({ status: "judged", passes: true, repaired: true });
    expect(judgement.answers).toHaveLength(2);
    expect(judgement.answers[0]).toBe("I would rate it 5/5.");
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.at(-2)).toEqual({ role: "assistant", content: "I would rate it 5/5." });
    expect(requests[1]?.messages.at(-1)?.content).toContain("the answer is not valid JSON");
    expect(requests[1]?.messages.at(-1)?.content).toContain('"actionability": {"feedback": "…", "score": 1}');
  });

  it("two unusable answers (a score of 7, then a missing criterion) are a typed failure that never passes", async () => {
    const { judgement, requests } = await judge([
      { content: JSON.stringify({ rootCause: grade(7), location: grade(4), actionability: grade(4) }) },
      { content: JSON.stringify({ rootCause: grade(5) }) },
    ]);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.messages.at(-1)?.content).toContain("rootCause.score: Too big");
    expect(judgement).toMatchObject({
      status: "invalid_answer",
      passes: false,
      error: expect.stringContaining("location"),
    });
    expect(judgement.answers).toHaveLength(2);
  });

  it("a model error is a typed failure, not a throw", async () => {
    const { judgement } = await judge([{ fault: "http-503" }]);
    expect(judgement).toMatchObject({
      status: "model_error",
      passes: false,
      error: expect.stringContaining("http-5xx"),
    });
  });

  it("no finding, or a finding with an empty field, is not sent to the judge", async () => {
    const { finding: _finding, ...bare } = prediction;
    const none = await judge([scores(5, 5, 5)], { prediction: bare });
    expect(none.judgement).toMatchObject({ status: "no_finding", passes: false });
    expect(none.requests).toHaveLength(0);
    await server?.close();
    const hollow = { ...prediction, finding: { ...prediction.finding!, rootCause: "  ", testingImpact: "" } };
    const empty = await judge([scores(5, 5, 5)], { prediction: hollow });
    expect(empty.judgement).toMatchObject({
      status: "empty_finding",
      error: expect.stringContaining("rootCause, testingImpact"),
    });
    expect(empty.requests).toHaveLength(0);
  });
});

describe("renderFindingForRepair", () => {
  const judged = (passes: boolean): Judgement => ({
    status: "judged",
    scores: { rootCause: 4, location: 4, actionability: 4 },
    feedback: { rootCause: "r", location: "r", actionability: "r" },
    answers: [],
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
        answers: [],
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      }),
    ).toBe("");
    const { finding: _finding, ...bare } = prediction;
    expect(renderFindingForRepair(bare)).toBe("");
  });
});
