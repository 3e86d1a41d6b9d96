import type { Prediction } from "@loclab/schemas";
import { runTool, type SherlocToolbox, type Workspace } from "@loclab/tools";
import type { ChatToolCall, ToolDefinition } from "./chat-message.js";
import { fillTemplate } from "./prompt-templates.js";
import { callKey } from "./repetition.js";
import { resolveSubmission } from "./resolve-submission.js";
import { acceptSherlocAnswer } from "./sherloc-answer.js";
import { SHERLOC_ANSWER } from "./sherloc-protocol.js";
import { SUBMIT_LOCALIZATION, submissionSchema } from "./submit-localization.js";

/** What the loop needs to run one call. */
export interface CallContext {
  workspace: Workspace;
  instanceId: string;
  maxLocations: number;
  /** The tools offered this turn, and all tools (to tell "not now" from "unknown"). */
  offered: readonly ToolDefinition[];
  allTools: readonly ToolDefinition[];
  /** `callKey`s of the previous turn's calls: the same call again is refused. */
  previousCalls: ReadonlySet<string>;
  /** prompts/final-repair.md, filled with the problems of a refused submission. */
  repairTemplate: string;
  /** The `sherloc` profile: SHERLOC's tools run the calls, and its `<locations>` answer ends the run. */
  sherloc?: SherlocToolbox;
}

/** What a call gave: the observation for the model, and what it means for the loop. */
export interface CallOutcome {
  observation: string;
  ok: boolean;
  /** A valid submission: the loop ends with this prediction. */
  accepted?: { prediction: Prediction; droppedPaths: string[] };
  /** A refused submission: the problems, one per line. */
  rejected?: string;
  /** A recovery branch the call took (docs/definitions.md §1). */
  recovery?: { kind: "unknown_tool" | "repeated_call" | "malformed_call"; detail: string };
}

/**
 * Runs one tool call of the model's: `submit_localization` is checked (schema, then paths
 * resolved as view_file resolves them); a tool not offered now, or unknown, is refused with
 * the tools that are; the exact call of the previous turn is refused as a repeat; anything
 * else goes to the tool suite (`runTool`), whose malformed-call errors are a recovery too.
 */
export async function dispatchCall(context: CallContext, call: ChatToolCall): Promise<CallOutcome> {
  if (call.name === SHERLOC_ANSWER && context.sherloc) {
    const accepted = await acceptSherlocAnswer(
      context.sherloc.workspace,
      context.instanceId,
      argumentsRecord(call.arguments),
    );
    return { observation: "Accepted.", ok: true, accepted };
  }
  if (call.name === SUBMIT_LOCALIZATION) {
    const checked = await checkSubmission(context, call);
    if (checked.ok) return { observation: "Accepted.", ok: true, accepted: checked };
    const rejected = checked.problems.map((problem) => `- ${problem}`).join("\n");
    return { observation: fillTemplate(context.repairTemplate, { problems: rejected }), ok: false, rejected };
  }
  if (!context.offered.some((tool) => tool.name === call.name)) {
    const names = context.offered.map((tool) => tool.name).join(", ");
    const known = context.allTools.some((tool) => tool.name === call.name);
    const observation = known
      ? `Error: ${call.name} is not available now; the only tool is ${names}.\n`
      : `Error: unknown tool ${JSON.stringify(call.name)}. The tools are: ${names}.\n`;
    return { observation, ok: false, recovery: { kind: "unknown_tool", detail: call.name } };
  }
  if (context.previousCalls.has(callKey(call))) {
    return {
      observation: `Error: you are repeating yourself: this exact ${call.name} call was made in the previous turn and its result is above. Do something else: another file, another search, or submit_localization.\n`,
      ok: false,
      recovery: { kind: "repeated_call", detail: `${call.name} ${call.arguments}` },
    };
  }
  if (context.sherloc) {
    const outcome = await context.sherloc.run(call.name, argumentsRecord(call.arguments));
    return { observation: outcome.text, ok: outcome.ok };
  }
  const outcome = await runTool(context.workspace, { name: call.name, arguments: call.arguments });
  const malformed = !outcome.ok && outcome.error.code === "malformed-call";
  return {
    observation: outcome.text,
    ok: outcome.ok,
    ...(malformed ? { recovery: { kind: "malformed_call" as const, detail: outcome.error.message } } : {}),
  };
}

async function checkSubmission(context: CallContext, call: ChatToolCall) {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch (error) {
    return { ok: false as const, problems: [`the arguments are not valid JSON: ${(error as Error).message}`] };
  }
  const parsed = submissionSchema(context.maxLocations).safeParse(args);
  if (!parsed.success)
    return {
      ok: false as const,
      problems: parsed.error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`),
    };
  return resolveSubmission(context.workspace, context.instanceId, parsed.data);
}

/** The arguments as the trajectory stores them: the parsed object, or `{ raw }` when they are not a JSON object. */
export function argumentsRecord(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through: keep the raw text
  }
  return { raw };
}
