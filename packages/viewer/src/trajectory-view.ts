import type { GoldLocations } from "@loclab/gold";
import type { Prediction } from "@loclab/schemas";
import { DEFAULT_NEAR_LINES, markTouch, spanCoverage } from "./gold-overlay.js";
import { SITE_SCHEMA_VERSION, type TrajectoryView, type ViewNote, type ViewStep } from "./site-types.js";
import { type Touch, touchesOfCall } from "./touches.js";

/** One step as every source gives it: loclab's raw lines and the analysis package's model both fit. */
export interface SourceStep {
  output?: string | null | undefined;
  finishReason?: string | undefined;
  usage?: {
    totalTokens?: number | undefined;
    promptTokens?: number | undefined;
    completionTokens?: number | undefined;
  };
  toolCalls: {
    name: string;
    arguments: Record<string, unknown>;
    observation?: string | undefined;
    ok?: boolean | undefined;
  }[];
  error?: string | undefined;
  /** The user messages the harness added to this step's request (step 0: the issue). */
  harnessMessages?: string[];
}

/** The view's own fields as given, then what it is made from. */
export interface TrajectoryViewInput
  extends Pick<
    TrajectoryView,
    "id" | "instanceId" | "cell" | "format" | "source" | "exit" | "outcome" | "error" | "model"
  > {
  steps: readonly SourceStep[];
  /** The instance's issue as written (to show beside a masked or mapped one). */
  originalIssue?: string | undefined;
  /** Gold of the instance, in original paths. */
  gold?: Pick<GoldLocations, "files" | "spans"> | undefined;
  /** Shuffled cells: a workspace path's original (undefined when unknown). */
  originalPathOf?: ((path: string) => string | undefined) | undefined;
  prediction?: Prediction | undefined;
  judge?: unknown;
  repair?: TrajectoryView["repair"];
  /** Why there is no gold overlay, when there could have been one. */
  overlayNote?: string | null;
  nearLines?: number;
}

/**
 * A harness note's kind, from the words loclab's localizer and fixer start them with
 * (take-turn.ts, dispatch-call.ts, fix-instance.ts): budgets (`wall budget`, `context:` over the limit, the
 * forced final turn of the step budget) apart from the self-recovery branches (a malformed or
 * repeated call, an unknown tool, a repeated line, no tool call, a repaired final answer, cut
 * observations, the fixer's nudge and compaction) and plain errors (a refused model request…).
 */
export function noteKind(text: string): ViewNote["kind"] {
  if (/^(wall budget|context:|forced_final)/i.test(text)) return "budget";
  if (
    /^(malformed_call|unknown_tool|repeated_call|repeated_line|no_tool_call|context_truncated|final_repair|recovery|compaction)\b/i.test(
      text,
    )
  )
    return "recovery";
  return "error";
}

/** The page's view of one trajectory: steps with their calls' touches marked against the gold. */
export function buildTrajectoryView(input: TrajectoryViewInput): TrajectoryView {
  const nearLines = input.nearLines ?? DEFAULT_NEAR_LINES;
  const pathMap = new Map<string, string>();
  const original = (path: string): string => {
    if (!input.originalPathOf) return path;
    const mapped = input.originalPathOf(path);
    if (mapped !== undefined && mapped !== path) pathMap.set(path, mapped);
    return mapped ?? path;
  };
  const gold = input.gold;
  const located: { step: number; touch: Touch }[] = [];
  let issueShown: string | null = null;
  const steps: ViewStep[] = input.steps.map((step, index) => {
    const harness = [...(step.harnessMessages ?? [])];
    if (index === 0 && harness.length > 0) issueShown = harness.shift() ?? null;
    const notes: ViewNote[] = [];
    if (step.error)
      for (const line of step.error.split("\n").filter(Boolean)) notes.push({ kind: noteKind(line), text: line });
    for (const message of harness) notes.push({ kind: "harness", text: message });
    return {
      index,
      output: step.output ?? null,
      finishReason: step.finishReason ?? null,
      tokens: step.usage?.totalTokens ?? sumTokens(step.usage),
      notes,
      calls: step.toolCalls.map((call) => ({
        name: call.name,
        arguments: call.arguments,
        observation: call.observation ?? null,
        ok: call.ok ?? null,
        touches: touchesOfCall(call).map((touch) => {
          const path = original(touch.path);
          const mapped = { ...touch, path };
          located.push({ step: index, touch: mapped });
          return {
            ...touch,
            ...(path !== touch.path ? { original: path } : {}),
            mark: gold ? markTouch(mapped, gold, { nearLines }) : null,
          };
        }),
      })),
    };
  });
  const prediction = input.prediction;
  return {
    kind: "loclab.site-trajectory",
    schemaVersion: SITE_SCHEMA_VERSION,
    id: input.id,
    instanceId: input.instanceId,
    cell: input.cell,
    format: input.format,
    source: input.source,
    exit: input.exit,
    outcome: input.outcome,
    error: input.error,
    model: input.model,
    issue: issueOf(issueShown, input.originalIssue),
    steps,
    gold: gold ? { files: [...gold.files], spans: spanCoverage(gold.spans, located, { nearLines }), nearLines } : null,
    pathMap: input.originalPathOf ? Object.fromEntries(pathMap) : null,
    final: prediction
      ? {
          files: prediction.files,
          // Each final location against the gold as a touch of its lines (original paths: a shuffled cell's prediction is mapped back).
          locations: prediction.locations.map((location) => ({
            ...location,
            mark: gold
              ? markTouch(
                  { path: location.path, lines: [{ start: location.startLine, end: location.endLine }], kind: "view" },
                  gold,
                  { nearLines },
                )
              : null,
          })),
          finding: prediction.finding ?? null,
        }
      : null,
    judge: input.judge ?? null,
    repair: input.repair ?? null,
    overlayNote: input.overlayNote ?? null,
  };
}

function sumTokens(usage: SourceStep["usage"]): number | null {
  if (!usage) return null;
  const sum = (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0);
  return sum > 0 ? sum : null;
}

/**
 * The issue as the model was shown it (the first user message: the issue inside the prompt's
 * template), with the issue as written beside it only when a control changed it (the shown
 * text no longer contains it).
 */
function issueOf(shown: string | null, original: string | undefined): TrajectoryView["issue"] {
  if (shown === null) return original === undefined ? null : { shown: original, original: null };
  return { shown, original: original !== undefined && !shown.includes(original.trim()) ? original : null };
}
