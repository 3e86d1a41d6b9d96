import type { Prediction } from "@loclab/schemas";
import { z } from "zod";
import type { ChatMessage, TokenUsage } from "./chat-message.js";
import type { ModelClient } from "./model-client.js";
import { ModelCallError } from "@loclab/openai-http";
import { findingLines, locationLines, renderHandOff } from "./hand-off.js";
import { fillTemplate, readPromptTemplate } from "./prompt-templates.js";

/** SHERLOC's filter (docs/definitions.md §1): findings whose composite is below this are not injected. */
export const DEFAULT_JUDGE_THRESHOLD = 4.0;

const score = z.number().int().min(1).max(5);

/** The judge's answer. Extra fields are ignored; the three scores and a rationale are required. */
export const judgeAnswerSchema = z.object({
  rootCauseCorrectness: score,
  locationAccuracy: score,
  solutionActionability: score,
  rationale: z.string().trim().min(1),
});

export type JudgeScores = Omit<z.output<typeof judgeAnswerSchema>, "rationale">;

export type Judgement =
  | {
      status: "judged";
      scores: JudgeScores;
      rationale: string;
      /** Mean of the three scores, unrounded. */
      composite: number;
      threshold: number;
      passes: boolean;
      /** True when the first answer was invalid and the repair request's answer was used. */
      repaired: boolean;
      usage: TokenUsage;
    }
  | {
      /** `invalid_answer`: the answer and the repaired answer were both unusable; `model_error`: transport or 4xx; `no_finding`: nothing to judge (no call made). */
      status: "invalid_answer" | "model_error" | "no_finding";
      passes: false;
      error: string;
      usage: TokenUsage;
    };

export interface JudgeFindingOptions {
  client: ModelClient;
  instance: { instance_id: string; problem_statement: string };
  prediction: Prediction;
  /** Default 4.0. */
  threshold?: number;
}

/**
 * The quality filter between a localizer and a repair agent (docs/definitions.md §1): a judge model
 * scores the prediction's finding 1–5 on root-cause correctness, location accuracy and solution
 * actionability (prompts/judge.md); composite = mean; `passes = composite >= threshold`. An
 * answer that is not valid JSON of the right shape gets one repair request (prompts/judge-repair.md);
 * a second bad answer is a typed failure (`invalid_answer`), as is a model error. Failures never pass.
 *
 * @example
 * const judgement = await judgeFinding({ client, instance, prediction });
 * const block = renderFindingForRepair(prediction, judgement); // "" when filtered out
 */
export async function judgeFinding(options: JudgeFindingOptions): Promise<Judgement> {
  const threshold = options.threshold ?? DEFAULT_JUDGE_THRESHOLD;
  if (!(threshold >= 1 && threshold <= 5)) throw new RangeError("threshold must be between 1 and 5");
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const { prediction, instance, client } = options;
  if (prediction.finding === undefined)
    return {
      status: "no_finding",
      passes: false,
      error: `prediction for ${prediction.instanceId} has no finding`,
      usage,
    };

  const messages: ChatMessage[] = [
    {
      role: "user",
      content: fillTemplate(await readPromptTemplate("judge"), {
        instanceId: instance.instance_id,
        problemStatement: instance.problem_statement,
        locations: locationLines(prediction),
        finding: findingLines(prediction.finding),
      }),
    },
  ];
  const repairTemplate = await readPromptTemplate("judge-repair");
  for (let attempt = 1; ; attempt++) {
    let content: string | null;
    try {
      const completion = await client.complete({ messages });
      content = completion.message.content;
      if (completion.usage) {
        usage.promptTokens += completion.usage.promptTokens;
        usage.completionTokens += completion.usage.completionTokens;
        usage.totalTokens += completion.usage.totalTokens;
      }
    } catch (error) {
      if (error instanceof ModelCallError) return { status: "model_error", passes: false, error: error.message, usage };
      throw error;
    }
    const parsed = parseJudgeAnswer(content);
    if (parsed.ok) {
      const { rationale, ...scores } = parsed.answer;
      const composite = (scores.rootCauseCorrectness + scores.locationAccuracy + scores.solutionActionability) / 3;
      return {
        status: "judged",
        scores,
        rationale,
        composite,
        threshold,
        passes: composite >= threshold,
        repaired: attempt > 1,
        usage,
      };
    }
    if (attempt === 2) return { status: "invalid_answer", passes: false, error: parsed.problems.join("; "), usage };
    messages.push(
      { role: "assistant", content: content ?? "" },
      {
        role: "user",
        content: fillTemplate(repairTemplate, { problems: parsed.problems.map((p) => `- ${p}`).join("\n") }),
      },
    );
  }
}

/** The JSON object of a judge answer: the fenced json block if there is one, else the whole text. */
export function parseJudgeAnswer(
  content: string | null,
): { ok: true; answer: z.output<typeof judgeAnswerSchema> } | { ok: false; problems: string[] } {
  const text = (content ?? "").trim();
  if (text === "") return { ok: false, problems: ["the answer is empty"] };
  const fenced = /```(?:json)?[ \t]*\r?\n([\s\S]*?)```/i.exec(text);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : text);
  } catch (error) {
    return { ok: false, problems: [`the answer is not valid JSON: ${(error as Error).message}`] };
  }
  const checked = judgeAnswerSchema.safeParse(value);
  if (!checked.success)
    return {
      ok: false,
      problems: checked.error.issues.map((issue) => `${issue.path.join(".") || "answer"}: ${issue.message}`),
    };
  return { ok: true, answer: checked.data };
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
