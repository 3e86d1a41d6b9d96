import { createHash } from "node:crypto";
import { z } from "zod";

const Level = z.string().trim().min(1);

/**
 * One criterion of the judge's rubric, Prometheus-style: a question and a description of what
 * earns each score from 1 to 5, so that the judge grades against written levels rather than
 * its own scale.
 */
export const RubricCriterionSchema = z.strictObject({
  /** The key of the criterion in the judge's answer and in the composite's weights (`rootCause`). */
  id: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, "letters, digits and _, starting with a letter"),
  name: z.string().trim().min(1),
  question: z.string().trim().min(1),
  levels: z.strictObject({ "1": Level, "2": Level, "3": Level, "4": Level, "5": Level }),
});
export type RubricCriterion = z.output<typeof RubricCriterionSchema>;

/** A judge rubric: the criteria scored, in the order the judge answers them. */
export const JudgeRubricSchema = z.strictObject({
  criteria: z
    .array(RubricCriterionSchema)
    .min(1)
    .refine(
      (criteria) => new Set(criteria.map((c) => c.id)).size === criteria.length,
      "a criterion id is listed twice",
    ),
});
export type JudgeRubric = z.output<typeof JudgeRubricSchema>;

/**
 * SHERLOC's three criteria (docs/definitions.md §1), each level written out. The composite's
 * default weights are their mean.
 */
export const DEFAULT_JUDGE_RUBRIC: JudgeRubric = {
  criteria: [
    {
      id: "rootCause",
      name: "Root cause correctness",
      question: "Does the root cause explain the reported behaviour, in terms of the code?",
      levels: {
        "1": "No root cause, or one that contradicts the issue or the code.",
        "2": "Names the general area but the mechanism is wrong or missing.",
        "3": "Plausible mechanism, but vague or only partly tied to the code shown.",
        "4": "The right mechanism in terms of the code, with a minor gap or imprecision.",
        "5": "The exact defect: which code does what wrong, and why that produces the reported behaviour.",
      },
    },
    {
      id: "location",
      name: "Location accuracy",
      question: "Do the locations point at the code a fix must change, with tight line spans?",
      levels: {
        "1": "No location, or files unrelated to the issue.",
        "2": "The right file among several wrong ones, or spans far from the defect.",
        "3": "The right file, but spans too broad or missing part of the change.",
        "4": "The right file and function; spans cover the change with some excess.",
        "5": "Exactly the lines a fix must change, best first, nothing superfluous.",
      },
    },
    {
      id: "actionability",
      name: "Solution actionability",
      question: "Could a repair agent act on the solution idea directly?",
      levels: {
        "1": "No solution idea, or one that would not fix the issue.",
        "2": 'A direction only ("fix the calculation"), with no concrete change.',
        "3": "A concrete change, but incomplete or with a likely side effect left unmentioned.",
        "4": "A concrete, correct change; small details left to the repair agent.",
        "5": "A precise, correct change a repair agent can make as written, with its consequences covered.",
      },
    },
  ],
};

/** The composite's default weights: the mean of root cause, location and actionability. */
export const DEFAULT_JUDGE_WEIGHTS: Readonly<Record<string, number>> = { rootCause: 1, location: 1, actionability: 1 };

/**
 * The weighted mean of the scores over the criteria with a weight; unrounded. Errors: a weight
 * naming a criterion the scores lack, no positive weight.
 */
export function compositeOf(
  scores: Readonly<Record<string, number>>,
  weights: Readonly<Record<string, number>>,
): number {
  let sum = 0;
  let total = 0;
  for (const [id, weight] of Object.entries(weights)) {
    if (!(weight >= 0)) throw new RangeError(`the weight of ${id} must be a number ≥ 0 (got ${weight})`);
    if (weight === 0) continue;
    const score = scores[id];
    if (score === undefined) throw new Error(`the composite weighs ${id}, which the rubric does not score`);
    sum += weight * score;
    total += weight;
  }
  if (total === 0) throw new RangeError("the composite needs at least one positive weight");
  return sum / total;
}

/** sha256 of the rubric and the prompt templates that carry it: a judgement is reused only under the same words. */
export function rubricDigest(rubric: JudgeRubric, templates: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify({ rubric, templates })).digest("hex");
}

/** The rubric as the judge reads it: per criterion its question, then one line per score. */
export function renderRubric(rubric: JudgeRubric): string {
  return rubric.criteria
    .map((criterion) =>
      [
        `### \`${criterion.id}\`: ${criterion.name}`,
        criterion.question,
        ...(["1", "2", "3", "4", "5"] as const).map((level) => `- ${level}: ${criterion.levels[level]}`),
      ].join("\n"),
    )
    .join("\n\n");
}

/** The answer's shape, feedback before score, criteria in the rubric's order. */
export function answerShape(rubric: JudgeRubric): string {
  return `{${rubric.criteria.map((c) => `"${c.id}": {"feedback": "…", "score": 1}`).join(", ")}}`;
}

/**
 * The answer's shape as a JSON Schema, for a judge whose answer is decoded by it (`constrained`):
 * per criterion, the feedback first, then an integer score 1–5. Pure.
 */
export function judgeAnswerSchema(rubric: JudgeRubric): { name: string; schema: Record<string, unknown> } {
  const grade = {
    type: "object",
    properties: { feedback: { type: "string" }, score: { enum: [1, 2, 3, 4, 5] } },
    required: ["feedback", "score"],
    additionalProperties: false,
  };
  return {
    name: "judgement",
    schema: {
      type: "object",
      properties: Object.fromEntries(rubric.criteria.map((criterion) => [criterion.id, grade])),
      required: rubric.criteria.map((criterion) => criterion.id),
      additionalProperties: false,
    },
  };
}
