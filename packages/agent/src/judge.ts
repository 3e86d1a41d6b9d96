import type { Finding, Prediction } from "@loclab/schemas";
import { z } from "zod";
import type { ChatMessage, TokenUsage } from "./chat-message.js";
import type { ModelClient } from "./model-client.js";
import { ModelCallError } from "@loclab/openai-http";
import { findingLines, locationLines, renderHandOff } from "./hand-off.js";
import {
  answerShape,
  compositeOf,
  judgeAnswerSchema,
  DEFAULT_JUDGE_RUBRIC,
  DEFAULT_JUDGE_WEIGHTS,
  type JudgeRubric,
  renderRubric,
  rubricDigest,
} from "./judge-rubric.js";
import { fillTemplate, readPromptTemplate } from "./prompt-templates.js";

/** SHERLOC's filter (docs/definitions.md §1): findings whose composite is below this are not injected. */
export const DEFAULT_JUDGE_THRESHOLD = 4.0;

/** One criterion's grade: the feedback first (why), then the score. */
export interface CriterionGrade {
  feedback: string;
  score: number;
}

export type Judgement =
  | {
      status: "judged";
      /** Per criterion of the rubric, its score 1–5. */
      scores: Record<string, number>;
      /** Per criterion, the judge's feedback (written before its score). */
      feedback: Record<string, string>;
      /** The weighted mean of the scores, unrounded. */
      composite: number;
      threshold: number;
      passes: boolean;
      /** True when the first answer was invalid and the repair request's answer was used. */
      repaired: boolean;
      /** The judge's raw answers, in order (two when repaired). */
      answers: string[];
      usage: TokenUsage;
    }
  | {
      /**
       * `invalid_answer`: the answer and the repaired answer were both unusable; `model_error`:
       * transport or 4xx; `no_finding`: the prediction has none; `empty_finding`: a field of it is
       * empty (no call made for either).
       */
      status: "invalid_answer" | "model_error" | "no_finding" | "empty_finding";
      passes: false;
      error: string;
      answers: string[];
      usage: TokenUsage;
    };

export interface JudgeFindingOptions {
  client: ModelClient;
  instance: { instance_id: string; problem_statement: string };
  prediction: Pick<Prediction, "instanceId" | "files" | "locations" | "finding">;
  /** The criteria and their levels; default SHERLOC's three (`DEFAULT_JUDGE_RUBRIC`). */
  rubric?: JudgeRubric;
  /** The composite's weights by criterion id; default the mean of root cause, location, actionability. */
  weights?: Readonly<Record<string, number>>;
  /** Default 4.0. */
  threshold?: number;
  /**
   * Decode the answer by the rubric's JSON Schema (`judgeAnswerSchema`; vLLM's structured
   * outputs, `loclab serve`'s grammar), so a small judge cannot answer out of shape. Default
   * false (SHERLOC's judge decodes freely; a bad answer gets one repair request).
   */
  constrained?: boolean;
}

const FINDING_FIELDS = ["locationExplanation", "rootCause", "solutionIdea", "dependencies", "testingImpact"] as const;

/**
 * The quality filter between a localizer and a repair agent (docs/definitions.md §1, §9): a judge
 * model grades the prediction's finding on each criterion of a rubric written out per score
 * level (Prometheus-style; prompts/judge.md), feedback first, then an integer score 1–5;
 * composite = the weighted mean; `passes = composite >= threshold`. An answer that is not JSON
 * of the right shape gets one repair request (prompts/judge-repair.md); a second bad answer is a
 * typed failure (`invalid_answer`), as is a model error. A prediction without a finding, or
 * with an empty field, is not sent. Failures never pass; every raw answer is kept.
 *
 * @example
 * const judgement = await judgeFinding({ client, instance, prediction });
 * const block = renderFindingForRepair(prediction, judgement); // "" when filtered out
 */
export async function judgeFinding(options: JudgeFindingOptions): Promise<Judgement> {
  const threshold = options.threshold ?? DEFAULT_JUDGE_THRESHOLD;
  if (!(threshold >= 1 && threshold <= 5)) throw new RangeError("threshold must be between 1 and 5");
  const rubric = options.rubric ?? DEFAULT_JUDGE_RUBRIC;
  const weights = options.weights ?? DEFAULT_JUDGE_WEIGHTS;
  // A weight naming no criterion is the caller's mistake: say so before any call.
  compositeOf(Object.fromEntries(rubric.criteria.map((c) => [c.id, 1])), weights);
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const answers: string[] = [];
  const { prediction, instance, client } = options;
  if (prediction.finding === undefined)
    return {
      status: "no_finding",
      passes: false,
      error: `prediction for ${prediction.instanceId} has no finding`,
      answers,
      usage,
    };
  const empty = emptyFields(prediction.finding);
  if (empty.length > 0)
    return {
      status: "empty_finding",
      passes: false,
      error: `the finding of ${prediction.instanceId} has empty fields: ${empty.join(", ")}`,
      answers,
      usage,
    };

  const messages: ChatMessage[] = [
    {
      role: "user",
      content: fillTemplate(await readPromptTemplate("judge"), {
        problemStatement: instance.problem_statement,
        locations: locationLines(prediction),
        finding: findingLines(prediction.finding),
        rubric: renderRubric(rubric),
        answerShape: answerShape(rubric),
      }),
    },
  ];
  const repairTemplate = await readPromptTemplate("judge-repair");
  for (let attempt = 1; ; attempt++) {
    let content: string | null;
    try {
      const completion = await client.complete({
        messages,
        ...(options.constrained ? { responseSchema: judgeAnswerSchema(rubric) } : {}),
      });
      content = completion.message.content;
      answers.push(content ?? "");
      if (completion.usage) {
        usage.promptTokens += completion.usage.promptTokens;
        usage.completionTokens += completion.usage.completionTokens;
        usage.totalTokens += completion.usage.totalTokens;
      }
    } catch (error) {
      if (error instanceof ModelCallError)
        return { status: "model_error", passes: false, error: error.message, answers, usage };
      throw error;
    }
    const parsed = parseJudgeAnswer(content, rubric);
    if (parsed.ok) {
      const scores = Object.fromEntries(Object.entries(parsed.grades).map(([id, grade]) => [id, grade.score]));
      const feedback = Object.fromEntries(Object.entries(parsed.grades).map(([id, grade]) => [id, grade.feedback]));
      const composite = compositeOf(scores, weights);
      return {
        status: "judged",
        scores,
        feedback,
        composite,
        threshold,
        passes: composite >= threshold,
        repaired: attempt > 1,
        answers,
        usage,
      };
    }
    if (attempt === 2)
      return { status: "invalid_answer", passes: false, error: parsed.problems.join("; "), answers, usage };
    messages.push(
      { role: "assistant", content: content ?? "" },
      {
        role: "user",
        content: fillTemplate(repairTemplate, {
          problems: parsed.problems.map((p) => `- ${p}`).join("\n"),
          answerShape: answerShape(rubric),
        }),
      },
    );
  }
}

/** The finding's fields that are empty (blank); a schema-checked finding has none. */
function emptyFields(finding: Finding): string[] {
  return FINDING_FIELDS.filter((field) => typeof finding[field] !== "string" || finding[field].trim() === "");
}

const GradeSchema = z.strictObject({
  feedback: z.string().trim().min(1),
  score: z.number().int().min(1).max(5),
});

/**
 * The judge's grades from its answer: the fenced json block if there is one, else the whole
 * text; one `{feedback, score}` per criterion of the rubric (other keys are refused, so that a
 * misspelt criterion is named rather than dropped).
 */
export function parseJudgeAnswer(
  content: string | null,
  rubric: JudgeRubric = DEFAULT_JUDGE_RUBRIC,
): { ok: true; grades: Record<string, CriterionGrade> } | { ok: false; problems: string[] } {
  const text = (content ?? "").trim();
  if (text === "") return { ok: false, problems: ["the answer is empty"] };
  const fenced = /```(?:json)?[ \t]*\r?\n([\s\S]*?)```/i.exec(text);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : text);
  } catch (error) {
    return { ok: false, problems: [`the answer is not valid JSON: ${(error as Error).message}`] };
  }
  const schema = z.strictObject(Object.fromEntries(rubric.criteria.map((c) => [c.id, GradeSchema])));
  const checked = schema.safeParse(value);
  if (!checked.success)
    return {
      ok: false,
      problems: checked.error.issues.map((issue) => `${issue.path.join(".") || "answer"}: ${issue.message}`),
    };
  return { ok: true, grades: checked.data as Record<string, CriterionGrade> };
}

/**
 * The block injected into a downstream repair agent's prompt: the locations and the five-field
 * finding. "" when there is no finding, or when a judgement is given and does not pass
 * (the repair agent then runs as its baseline). Without a judgement nothing is filtered.
 */
export function renderFindingForRepair(prediction: Prediction, judgement?: Judgement): string {
  if (prediction.finding === undefined) return "";
  if (judgement !== undefined && !judgement.passes) return "";
  return renderHandOff({ kind: "findings", prediction });
}

/** The digest a judgement is cached under, beside the finding and the judge model: the rubric and the shipped judge prompts. */
export async function judgeRubricDigest(rubric: JudgeRubric = DEFAULT_JUDGE_RUBRIC): Promise<string> {
  return rubricDigest(rubric, [await readPromptTemplate("judge"), await readPromptTemplate("judge-repair")]);
}
