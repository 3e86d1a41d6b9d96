import { createHash } from "node:crypto";
import type { Provenance } from "@loclab/schemas";
import type { Prediction } from "@loclab/schemas";
import { runTool, toolDefinitions, type Workspace } from "@loclab/tools";
import type { ChatMessage, ChatToolCall, ToolDefinition } from "./chat-message.js";
import { truncateOldObservations } from "./context-truncation.js";
import type { ModelClient, Completion } from "./model-client.js";
import { ModelRequestError, ModelTransportError, type RetryRecord } from "./model-errors.js";
import { fillTemplate, readPromptTemplate } from "./prompt-templates.js";
import { callKey, repeatedLine } from "./repetition.js";
import { resolveSubmission } from "./resolve-submission.js";
import { parseTextToolCall } from "./text-tool-call.js";
import { SUBMIT_LOCALIZATION, submissionSchema, submitLocalizationTool } from "./submit-localization.js";
import { openTrajectory, type TrajectoryExit, type TrajectoryToolCall, type TrajectoryUsage } from "./trajectory-writer.js";

/** How a localization run ended. */
export type LocalizeOutcome = "finished" | "forced_final" | "budget_exhausted" | "model_error" | "invalid_final";

/** The self-recovery branches (docs/definitions.md §1), as recorded in the result and the trajectory. */
export type RecoveryKind = "malformed_call" | "unknown_tool" | "repeated_call" | "repeated_line" | "no_tool_call" | "context_truncated" | "forced_final" | "final_repair";

export interface Recovery {
  kind: RecoveryKind;
  /** 0-based turn (model call) it happened in or before. */
  turn: number;
  detail: string;
}

export type ToolMode = "native" | "text";

export interface LocalizeInstanceOptions {
  instance: { instance_id: string; problem_statement: string };
  workspace: Workspace;
  client: ModelClient;
  /** `<dir>/<instance_id>.traj.jsonl`, the loclab trajectory format. */
  trajectoryPath: string;
  /** Model calls, the forced final turn included (a final repair may add one). Default 20. */
  maxTurns?: number;
  /** Total tokens (prompt + completion, summed over calls) after which no call is made. */
  maxTotalTokens?: number;
  /** Wall time after which no call is made, measured with `now`. */
  maxWallMs?: number;
  /** Most locations a submission may have. Default 8 (FGL). */
  maxLocations?: number;
  /** Estimated prompt tokens above which the oldest observations are cut to a stub. */
  contextLimitTokens?: number;
  /**
   * `native` (default): tools go in the request's `tools` field and come back as tool calls.
   * `text`: for servers without a tool-call parser: no `tools` are sent; the system prompt
   * (prompts/system-text.md) asks for one ```json block `{"tool", "arguments"}` per turn, and
   * observations come back as user messages.
   */
  toolMode?: ToolMode;
  /** Epoch milliseconds; injectable for tests. Default `Date.now`. */
  now?: () => number;
  /** Written into the trajectory header (style.md: the log is the contract); the caller's run spec. */
  provenance?: Provenance;
}

export interface LocalizeResult {
  outcome: LocalizeOutcome;
  /** Present for `finished` and `forced_final`. */
  prediction?: Prediction;
  /** Model calls made (answered ones; a call that failed in transport is not counted). */
  turns: number;
  usage: TrajectoryUsage;
  /** Submitted paths that matched no file and were left out of the prediction. */
  droppedPaths: string[];
  /** For `budget_exhausted`: which budget. */
  budget?: "turns" | "tokens" | "wall_time";
  /** For `model_error` and `invalid_final`: what went wrong. */
  error?: string;
  recoveries: Recovery[];
}

/**
 * The structured diagnostic localizer (docs/definitions.md §1): one model, four read-only tools and
 * `submit_localization`, native tool calling, at most `maxTurns` turns. Each turn: call the
 * model, run its tool calls, append the observations, log the step. The conversation is the
 * only state. Exits are typed (`LocalizeOutcome`); the recovery branches are named in
 * `Recovery`. The trajectory gets one appended line per step as it happens.
 *
 * @example
 * const result = await localizeInstance({ instance, workspace, client, trajectoryPath: `runs/a/${instance.instance_id}.traj.jsonl` });
 * result.outcome; // "finished"
 * result.prediction?.files; // ["calc/ops.py"]
 */
export async function localizeInstance(options: LocalizeInstanceOptions): Promise<LocalizeResult> {
  const { instance, workspace, client } = options;
  const maxTurns = options.maxTurns ?? 20;
  const maxLocations = options.maxLocations ?? 8;
  const now = options.now ?? Date.now;
  const toolMode = options.toolMode ?? "native";
  if (toolMode !== "native" && toolMode !== "text") throw new RangeError(`toolMode must be "native" or "text", not ${JSON.stringify(toolMode)}`);
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new RangeError("maxTurns must be a positive integer");
  if (!Number.isInteger(maxLocations) || maxLocations < 1) throw new RangeError("maxLocations must be a positive integer");
  const iso = () => new Date(now()).toISOString();
  const startedMs = now();

  const submitTool = submitLocalizationTool(maxLocations);
  const allTools: ToolDefinition[] = [
    ...toolDefinitions().map((tool) => ({ name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters })),
    submitTool,
  ];
  const messages: ChatMessage[] = [
    { role: "system", content: fillTemplate(await readPromptTemplate(toolMode === "text" ? "system-text" : "system"), { tools: toolMode === "text" ? textToolList(allTools) : toolList(allTools), maxTurns: String(maxTurns), maxLocations: String(maxLocations), extraBudgets: extraBudgets(options) }) },
    { role: "user", content: fillTemplate(await readPromptTemplate("user"), { instanceId: instance.instance_id, problemStatement: instance.problem_statement }) },
  ];
  const forcedFinalPrompt = await readPromptTemplate("forced-final");
  const repairTemplate = await readPromptTemplate("final-repair");

  const trajectory = await openTrajectory(options.trajectoryPath, {
    instanceId: instance.instance_id,
    model: client.model,
    limits: { steps: maxTurns, ...(options.maxWallMs !== undefined ? { seconds: options.maxWallMs / 1000 } : {}) },
    startedAt: new Date(startedMs).toISOString(),
    ...(options.provenance ? { provenance: options.provenance } : {}),
  });
  const usage: TrajectoryUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, apiCalls: 0 };
  const recoveries: Recovery[] = [];
  let turns = 0;
  let previousCalls = new Set<string>();
  let forcedAsked = false;
  let repairPending = false;

  const end = async (exit: TrajectoryExit, result: Omit<LocalizeResult, "turns" | "usage" | "recoveries" | "droppedPaths"> & { droppedPaths?: string[] }): Promise<LocalizeResult> => {
    await trajectory.finish({ exit, usage, endedAt: iso() });
    return { droppedPaths: [], ...result, turns, usage, recoveries };
  };

  for (;;) {
    if (turns >= maxTurns && !repairPending) return end("step_limit", { outcome: "budget_exhausted", budget: "turns" });
    if (options.maxTotalTokens !== undefined && usage.totalTokens >= options.maxTotalTokens) return end("cost_limit", { outcome: "budget_exhausted", budget: "tokens" });
    if (options.maxWallMs !== undefined && now() - startedMs >= options.maxWallMs) return end("time_limit", { outcome: "budget_exhausted", budget: "wall_time" });

    const notes: string[] = [];
    const recover = (kind: RecoveryKind, detail: string) => {
      recoveries.push({ kind, turn: turns, detail });
      notes.push(`${kind}: ${detail}`);
    };
    const forced = !repairPending && turns === maxTurns - 1;
    if (forced) {
      forcedAsked = true;
      messages.push({ role: "user", content: forcedFinalPrompt });
      recover("forced_final", "last turn: only submit_localization offered");
    }
    if (options.contextLimitTokens !== undefined) {
      const cut = truncateOldObservations(messages, { limitTokens: options.contextLimitTokens });
      if (cut.truncated > 0) {
        messages.splice(0, messages.length, ...cut.messages);
        recover("context_truncated", `${cut.truncated} oldest observation(s) cut to a stub`);
      }
    }
    const offered = forced || repairPending ? [submitTool] : allTools;

    const startedAt = iso();
    const messagesDigest = createHash("sha256").update(JSON.stringify(messages)).digest("hex");
    let completion: Completion;
    try {
      completion = await client.complete(toolMode === "text" ? { messages } : { messages, tools: offered });
    } catch (error) {
      if (!(error instanceof ModelTransportError || error instanceof ModelRequestError)) throw error;
      const retries = error instanceof ModelTransportError ? error.retries : [];
      await trajectory.appendStep({ toolCalls: [], startedAt, endedAt: iso(), messagesDigest, ...(retries.length > 0 ? { retries: retries.map(retryRecord) } : {}), error: [...notes, ...retries.map(retryNote), `model error: ${error.message}`].join("; ") });
      return end("error", { outcome: "model_error", error: error.message });
    }
    turns += 1;
    usage.apiCalls += 1;
    if (completion.usage) {
      usage.promptTokens += completion.usage.promptTokens;
      usage.completionTokens += completion.usage.completionTokens;
      usage.totalTokens += completion.usage.totalTokens;
    }
    const { message } = completion;
    let toolCalls = message.toolCalls;
    let textProblem: { kind: "missing" | "malformed"; problem: string } | undefined;
    if (toolMode === "text") {
      // Tool calls live in the text; any native ones a server sends anyway are ignored.
      const parsed = parseTextToolCall(message.content);
      toolCalls = parsed.ok ? [{ id: `text_${turns - 1}`, name: parsed.name, arguments: parsed.arguments }] : [];
      if (!parsed.ok) textProblem = parsed;
      messages.push({ role: "assistant", content: message.content ?? "" });
    } else {
      messages.push({ role: "assistant", content: message.content, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    }

    // Run the calls in order; a valid submission ends the turn.
    const records: TrajectoryToolCall[] = [];
    const calls = new Set<string>();
    let accepted: { prediction: Prediction; droppedPaths: string[] } | undefined;
    let rejected: string | undefined;
    for (const call of toolCalls) {
      let observation: string;
      let ok: boolean;
      if (call.name === SUBMIT_LOCALIZATION) {
        const checked = await checkSubmission(workspace, instance.instance_id, call, maxLocations);
        if (checked.ok) {
          accepted = checked;
          observation = "Accepted.";
          ok = true;
        } else {
          rejected = checked.problems.map((problem) => `- ${problem}`).join("\n");
          observation = fillTemplate(repairTemplate, { problems: rejected });
          ok = false;
        }
      } else if (!offered.some((tool) => tool.name === call.name)) {
        const names = offered.map((tool) => tool.name).join(", ");
        const known = allTools.some((tool) => tool.name === call.name);
        observation = known ? `Error: ${call.name} is not available now; the only tool is ${names}.\n` : `Error: unknown tool ${JSON.stringify(call.name)}. The tools are: ${names}.\n`;
        recover("unknown_tool", call.name);
        ok = false;
      } else if (previousCalls.has(callKey(call))) {
        observation = `Error: you are repeating yourself: this exact ${call.name} call was made in the previous turn and its result is above. Do something else: another file, another search, or submit_localization.\n`;
        recover("repeated_call", `${call.name} ${call.arguments}`);
        ok = false;
      } else {
        const outcome = await runTool(workspace, { name: call.name, arguments: call.arguments });
        if (!outcome.ok && outcome.error.code === "malformed-call") recover("malformed_call", outcome.error.message);
        observation = outcome.text;
        ok = outcome.ok;
      }
      calls.add(callKey(call));
      messages.push(toolMode === "text" ? { role: "user", content: `Result of ${call.name}:\n${observation}` } : { role: "tool", toolCallId: call.id, content: observation });
      records.push({ name: call.name, arguments: argumentsRecord(call.arguments), observation, ok, observedAt: iso() });
      if (accepted) break;
    }
    previousCalls = calls;

    if (textProblem?.kind === "malformed") {
      messages.push({ role: "user", content: `Error: your tool call could not be read: ${textProblem.problem}. Write exactly one \`\`\`json block holding {"tool": "<name>", "arguments": {...}}.` });
      recover("malformed_call", textProblem.problem);
    } else if (textProblem?.kind === "missing" && !forced && !repairPending) {
      messages.push({ role: "user", content: `Error: ${textProblem.problem}. Every turn must call a tool: write exactly one \`\`\`json block holding {"tool": "<name>", "arguments": {...}}; hand in the answer with the tool submit_localization.` });
      recover("no_tool_call", textProblem.problem);
    } else if (toolCalls.length === 0 && !forced && !repairPending) {
      messages.push({ role: "user", content: "Error: your answer called no tool. Every turn must call a tool: explore with the tools, or hand in the answer with submit_localization." });
      recover("no_tool_call", "the answer called no tool");
    }
    const looping = message.content ? repeatedLine(message.content) : undefined;
    if (looping !== undefined && !accepted) {
      messages.push({ role: "user", content: `Error: you are repeating yourself: your output repeats the line ${JSON.stringify(looping.slice(0, 200))} over and over. Stop, and make a tool call that brings new information, or submit_localization.` });
      recover("repeated_line", looping.slice(0, 200));
    }

    await trajectory.appendStep({
      ...(message.content !== null ? { output: message.content } : {}),
      finishReason: completion.finishReason,
      ...(completion.usage ? { usage: completion.usage } : {}),
      toolCalls: records,
      startedAt,
      endedAt: iso(),
      messagesDigest,
      ...(completion.retries.length > 0 ? { retries: completion.retries.map(retryRecord) } : {}),
      ...(notes.length + completion.retries.length > 0 ? { error: [...completion.retries.map(retryNote), ...notes].join("; ") } : {}),
    });

    if (accepted) return end("submitted", { outcome: forcedAsked ? "forced_final" : "finished", prediction: accepted.prediction, droppedPaths: accepted.droppedPaths });
    if (repairPending) return end("format_error", { outcome: "invalid_final", error: rejected ?? "the repair turn did not call submit_localization" });
    if (rejected !== undefined) {
      repairPending = true;
      recoveries.push({ kind: "final_repair", turn: turns, detail: rejected });
      continue;
    }
    if (forced) return end("step_limit", { outcome: "budget_exhausted", budget: "turns" });
  }
}

/** A client retry as stored in the trajectory. */
function retryRecord(retry: { attempt: number; error: string; message: string; waitedMs: number }) {
  return { attempt: retry.attempt, error: retry.error, message: retry.message, waitedMs: retry.waitedMs };
}

async function checkSubmission(workspace: Workspace, instanceId: string, call: ChatToolCall, maxLocations: number) {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch (error) {
    return { ok: false as const, problems: [`the arguments are not valid JSON: ${(error as Error).message}`] };
  }
  const parsed = submissionSchema(maxLocations).safeParse(args);
  if (!parsed.success) return { ok: false as const, problems: parsed.error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`) };
  return resolveSubmission(workspace, instanceId, parsed.data);
}

function argumentsRecord(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through: keep the raw text
  }
  return { raw };
}

function retryNote(retry: RetryRecord): string {
  return `retry after attempt ${retry.attempt} (${retry.error}, waited ${retry.waitedMs} ms): ${retry.message}`;
}

function toolList(tools: readonly ToolDefinition[]): string {
  return tools.map((tool) => `- \`${tool.name}\`: ${tool.description ?? ""}`).join("\n");
}

/** For text mode the model sees each tool's parameters as JSON Schema, since no `tools` are sent. */
function textToolList(tools: readonly ToolDefinition[]): string {
  return tools.map((tool) => `- \`${tool.name}\`: ${tool.description ?? ""}\n  Parameters: ${JSON.stringify(tool.parameters ?? {})}`).join("\n");
}

function extraBudgets(options: LocalizeInstanceOptions): string {
  const parts: string[] = [];
  if (options.maxTotalTokens !== undefined) parts.push(`${options.maxTotalTokens} tokens in all`);
  if (options.maxWallMs !== undefined) parts.push(`${Math.round(options.maxWallMs / 1000)} seconds of wall time`);
  return parts.map((part) => `, ${part}`).join("");
}
