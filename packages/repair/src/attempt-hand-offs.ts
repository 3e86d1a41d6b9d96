import { renderHandOff } from "@loclab/agent";
import type { EvaluationInstance } from "@loclab/evaluation";
import { goldFromPatch } from "@loclab/gold";
import type { AttemptRequest } from "@loclab/runner";
import type { RepairRecord } from "@loclab/schemas";
import { decideHandOff } from "./hand-off-decision.js";
import type { JudgeRole } from "./judge-role.js";
import type { LocalizerStage } from "./localizer-stage.js";

// What an attempt hands the fixer after the issue (SHERLOC's transfer; docs/definitions.md §9).

/**
 * The oracle arm's hand-off: the gold patch's files and spans (docs/definitions.md §2, the
 * `@@` line numbers) rendered as a perfect localizer's locations, by the one renderer every arm
 * and framework shares.
 */
export function oracleHandOff(instance: Pick<EvaluationInstance, "instance_id" | "patch">): {
  text: string;
  record: NonNullable<RepairRecord["handOff"]>;
} {
  const gold = goldFromPatch(instance.patch, { instanceId: instance.instance_id });
  // Every gold span is where the fix edits (insertion anchors too).
  const locations = gold.spans.map((span) => ({
    path: span.path,
    startLine: span.startLine,
    endLine: span.endLine,
    role: "edit" as const,
  }));
  const text = renderHandOff({ kind: "locations", prediction: { files: gold.files, locations } });
  return {
    text,
    record: { kind: "locations", source: "gold", injected: true, locations: locations.length, chars: text.length },
  };
}

/**
 * A localizer arm's hand-off: the shared stage's prediction (run here, or read), the judge's
 * verdict on its finding when the run has a judge (every localizer arm, so that the findings
 * arm has composites for the quality bins), then the arm's rule (`decideHandOff`).
 */
export async function localizerHandOff(
  request: AttemptRequest,
  session: { stage?: LocalizerStage; judge?: JudgeRole },
  arm: "locations" | "findings" | "judged",
  rel: (path: string) => string,
): Promise<{ text: string | undefined; record: NonNullable<RepairRecord["handOff"]> }> {
  if (!session.stage) throw new Error(`arm ${arm} needs the run's localizer stage`);
  const { result, ran, path } = await session.stage.get(request);
  const instance = request.attempt.instance;
  const judgement =
    session.judge && result.prediction && arm !== "locations"
      ? await session.judge.judge(
          { instance_id: instance.instance_id, problem_statement: instance.problem_statement },
          result.prediction,
        )
      : undefined;
  const decision = decideHandOff({
    arm,
    prediction: result.prediction,
    stageOutcome: result.outcome,
    ...(judgement ? { judgement } : {}),
  });
  return {
    text: decision.text,
    record: {
      kind: decision.kind,
      source: "localizer",
      injected: decision.injected,
      ...(decision.reason ? { reason: decision.reason } : {}),
      locations: decision.locations,
      chars: decision.text?.length ?? 0,
      localization: {
        key: result.key,
        ran,
        outcome: result.outcome,
        usage: result.usage,
        path: rel(path),
        trajectory: result.trajectory,
      },
      ...(judgement ? { judgement } : {}),
    },
  };
}
