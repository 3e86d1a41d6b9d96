import { readFile } from "node:fs/promises";
import {
  DEFAULT_JUDGE_RUBRIC,
  DEFAULT_JUDGE_WEIGHTS,
  type JudgeRubric,
  JudgeRubricSchema,
  judgeRubricDigest,
} from "@loclab/agent";
import { RunSpecError } from "./load-run-spec.js";
import type { JudgeSpec } from "./run-spec.js";

/** A run's judge, resolved from its spec: the rubric read and checked, its digest, the weights. */
export interface JudgePlan {
  spec: JudgeSpec;
  model: string;
  rubric: JudgeRubric;
  /** sha256 of the rubric and the judge's prompt templates: with the finding and the model, a judgement's identity. */
  rubricDigest: string;
  weights: Readonly<Record<string, number>>;
  threshold: number;
  /** What of the judge enters the judged arm's attempt key. */
  keyConfig: Record<string, unknown>;
}

/**
 * Reads the judge's rubric file (or takes SHERLOC's default), checks it and the weights (a
 * weight naming a criterion the rubric lacks is an error, named by field), and digests it.
 */
export async function planJudge(spec: JudgeSpec): Promise<JudgePlan> {
  let rubric = DEFAULT_JUDGE_RUBRIC;
  if (spec.rubric) {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(spec.rubric, "utf8"));
    } catch (error) {
      throw new RunSpecError("$.judge.rubric", `${spec.rubric}: ${(error as Error).message}`);
    }
    const checked = JudgeRubricSchema.safeParse(raw);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new RunSpecError("$.judge.rubric", `${spec.rubric}: ${issue.path.join(".") || "rubric"}: ${issue.message}`);
    }
    rubric = checked.data;
  }
  const weights = spec.weights ?? DEFAULT_JUDGE_WEIGHTS;
  const ids = new Set(rubric.criteria.map((criterion) => criterion.id));
  for (const id of Object.keys(weights))
    if (!ids.has(id))
      throw new RunSpecError(
        `$.judge.weights.${id}`,
        `the rubric has no criterion ${id} (it has ${[...ids].join(", ")})`,
      );
  if (!Object.values(weights).some((weight) => weight > 0))
    throw new RunSpecError("$.judge.weights", "at least one weight must be positive");
  const rubricDigest = await judgeRubricDigest(rubric);
  const model = spec.endpoints[0]!.model;
  return {
    spec,
    model,
    rubric,
    rubricDigest,
    weights,
    threshold: spec.threshold,
    keyConfig: { model, rubric: rubricDigest, weights, threshold: spec.threshold },
  };
}
