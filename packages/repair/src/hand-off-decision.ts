import { renderHandOff } from "@loclab/agent";
import type { RepairArm } from "@loclab/runner";
import type { JudgementRefSchema, Prediction } from "@loclab/schemas";
import type { z } from "zod";

type JudgementRef = z.output<typeof JudgementRefSchema>;

/** What a localizer arm hands the fixer: the text (absent: the baseline prompt) and why. */
export interface HandOffDecision {
  kind: "locations" | "findings";
  injected: boolean;
  /** Why nothing was injected (absent when it was). */
  reason?: string;
  text?: string;
  locations: number;
}

/**
 * The hand-off of a localizer arm, pure (docs/definitions.md §9): `locations` hands the
 * prediction's files and spans; `findings` the spans and the five-field finding, whatever the
 * judge said; `judged` the same, only when the judge's composite reaches the threshold. Nothing
 * is injected, and the fixer runs the baseline prompt, when the stage gave no prediction, the
 * prediction has no location (`locations`) or no finding (`findings`, `judged`), or the judge
 * failed or filtered the finding out (`judged`); the reason is recorded.
 */
export function decideHandOff(options: {
  arm: Extract<RepairArm, "locations" | "findings" | "judged">;
  prediction: Prediction | undefined;
  /** How the localizer stage ended (for the reason when there is no prediction). */
  stageOutcome: string;
  judgement?: JudgementRef;
}): HandOffDecision {
  const { arm, prediction, judgement } = options;
  const kind = arm === "locations" ? "locations" : "findings";
  const skip = (reason: string): HandOffDecision => ({ kind, injected: false, reason, locations: 0 });
  if (!prediction) return skip(`the localizer stage ended ${options.stageOutcome} without a prediction`);
  if (prediction.locations.length === 0 && prediction.files.length === 0)
    return skip("the localizer's prediction has no location");
  if (kind === "findings" && !prediction.finding) return skip("the localizer's prediction has no finding");
  if (arm === "judged") {
    if (!judgement) return skip("the run has no judge");
    if (judgement.status !== "judged")
      return skip(`the judge gave no verdict (${judgement.status}): ${judgement.error ?? ""}`.trim());
    if (!judgement.passes)
      return skip(
        `the judge's composite ${judgement.composite!.toFixed(2)} is below the threshold ${judgement.threshold}`,
      );
  }
  const text = renderHandOff({ kind, prediction });
  return { kind, injected: true, text, locations: prediction.locations.length || prediction.files.length };
}
