import { createHash } from "node:crypto";
import type { Prediction, TrajectoryExit } from "@loclab/schemas";
import type { Workspace } from "@loclab/tools";
import type { ChatMessage, ChatToolCall, ToolDefinition } from "./chat-message.js";
import { truncateOldObservations } from "./context-truncation.js";
import { argumentsRecord, dispatchCall } from "./dispatch-call.js";
import type { Completion, ModelClient } from "./model-client.js";
import { ModelRequestError, ModelTransportError, type RetryRecord } from "./model-errors.js";
import { callKey, repeatedLine } from "./repetition.js";
import type { ToolProtocol } from "./tool-protocol.js";
import type { TrajectoryStep, TrajectoryUsage, TrajectoryWriter } from "./trajectory-writer.js";

/** The self-recovery branches (docs/definitions.md §1), as recorded in the result and the trajectory. */
export type RecoveryKind = "malformed_call" | "unknown_tool" | "repeated_call" | "repeated_line" | "no_tool_call" | "context_truncated" | "forced_final" | "final_repair";

export interface Recovery {
  kind: RecoveryKind;
  /** The 0-based model call it belongs to (a `final_repair` belongs to the call whose submission was refused). */
  turn: number;
  detail: string;
}

/** What stays fixed over a run. */
export interface TurnSetup {
  protocol: ToolProtocol;
  client: ModelClient;
  workspace: Workspace;
  instanceId: string;
  maxTurns: number;
  maxLocations: number;
  contextLimitTokens?: number;
  allTools: readonly ToolDefinition[];
  submitTool: ToolDefinition;
  prompts: { forcedFinal: string; repair: string };
  trajectory: TrajectoryWriter;
  iso: () => string;
}

/** What a run carries from turn to turn; the conversation is the only state the model sees. */
export interface LoopState {
  messages: ChatMessage[];
  turns: number;
  usage: TrajectoryUsage;
  recoveries: Recovery[];
  previousCalls: ReadonlySet<string>;
  forcedAsked: boolean;
  repairPending: boolean;
  /** Every transport fault the client retried, over all turns, in order (for the run record). */
  retries: RetryRecord[];
  /** Wall time spent inside model calls (waits and retries included), summed. */
  modelMs: number;
}

/** How a turn ended the run, if it did. */
export type TurnEnd =
  | { exit: "submitted"; prediction: Prediction; droppedPaths: string[] }
  | { exit: Exclude<TrajectoryExit, "submitted">; outcome: "model_error" | "invalid_final" | "budget_exhausted"; error?: string; errorKind?: ModelErrorKind };

/** Why a model call failed: the transport (the server or network, after retries) or the request (a 4xx refusal). */
export type ModelErrorKind = "transport" | "request";

/**
 * One turn of the localizer: the forced-final prompt on the last turn, context truncation,
 * one model call, its tool calls in order (a valid submission ends the turn), the nudges for
 * missing, malformed or looping answers. The step is appended to the trajectory in a
 * `finally`, so a tool or a bug that throws loses neither the model's output nor the calls
 * made before it (the error is noted in the step and rethrown).
 */
export async function takeTurn(setup: TurnSetup, state: LoopState): Promise<TurnEnd | undefined> {
  const turn = state.turns;
  const repairing = state.repairPending;
  const notes: string[] = [];
  const recover = (kind: RecoveryKind, detail: string) => {
    state.recoveries.push({ kind, turn, detail });
    notes.push(`${kind}: ${detail}`);
  };
  const { forced, offered } = prepareTurn(setup, state, recover);
  const step: TrajectoryStep = { toolCalls: [], startedAt: setup.iso(), messagesDigest: createHash("sha256").update(JSON.stringify(state.messages)).digest("hex") };
  let retries: readonly RetryRecord[] = [];
  try {
    let completion: Completion;
    try {
      completion = await setup.client.complete(setup.protocol.request(state.messages, offered));
    } catch (error) {
      if (!(error instanceof ModelTransportError || error instanceof ModelRequestError)) throw error;
      retries = error.retries;
      notes.push(`model error: ${error.message}`);
      return { exit: "error", outcome: "model_error", error: error.message, errorKind: error instanceof ModelTransportError ? "transport" : "request" };
    }
    retries = completion.retries;
    state.modelMs += completion.latencyMs;
    state.turns += 1;
    countUsage(state.usage, completion);
    const { message } = completion;
    Object.assign(step, { ...(message.content !== null ? { output: message.content } : {}), finishReason: completion.finishReason, ...(completion.usage ? { usage: completion.usage } : {}) });
    const { calls, problem } = setup.protocol.readCalls(message, turn);
    state.messages.push(setup.protocol.assistantMessage(message, calls));
    const ran = await runCalls(setup, state, calls, offered, step, recover);
    if (problem?.kind === "malformed" || (problem && !forced && !repairing)) {
      state.messages.push({ role: "user", content: setup.protocol.nudge(problem) });
      recover(problem.kind === "malformed" ? "malformed_call" : "no_tool_call", problem.problem);
    }
    const looping = message.content ? repeatedLine(message.content) : undefined;
    if (looping !== undefined && !ran.accepted) {
      state.messages.push({ role: "user", content: `Error: you are repeating yourself: your output repeats the line ${JSON.stringify(looping.slice(0, 200))} over and over. Stop, and make a tool call that brings new information, or submit_localization.` });
      recover("repeated_line", looping.slice(0, 200));
    }
    if (ran.accepted) return { exit: "submitted", ...ran.accepted };
    if (repairing) return { exit: "format_error", outcome: "invalid_final", error: ran.rejected ?? "the repair turn did not call submit_localization" };
    if (ran.rejected !== undefined) {
      state.repairPending = true;
      recover("final_repair", ran.rejected);
      return undefined;
    }
    return forced ? { exit: "step_limit", outcome: "budget_exhausted" } : undefined;
  } catch (error) {
    notes.push(`harness error: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  } finally {
    step.endedAt = setup.iso();
    state.retries.push(...retries);
    if (retries.length > 0) step.retries = retries.map(({ attempt, error, message, waitedMs }) => ({ attempt, error, message, waitedMs }));
    const harness = [...retries.map(retryNote), ...notes];
    if (harness.length > 0) step.error = harness.join("; ");
    await setup.trajectory.appendStep(step);
  }
}

/**
 * Before the model call: on the last turn the forced-final prompt (only submit_localization
 * offered, as in a repair turn), then context truncation when a limit is set.
 */
function prepareTurn(setup: TurnSetup, state: LoopState, recover: (kind: RecoveryKind, detail: string) => void): { forced: boolean; offered: readonly ToolDefinition[] } {
  const forced = !state.repairPending && state.turns === setup.maxTurns - 1;
  if (forced) {
    state.forcedAsked = true;
    state.messages.push({ role: "user", content: setup.prompts.forcedFinal });
    recover("forced_final", "last turn: only submit_localization offered");
  }
  if (setup.contextLimitTokens !== undefined) {
    const cut = truncateOldObservations(state.messages, { limitTokens: setup.contextLimitTokens });
    if (cut.truncated > 0) {
      state.messages.splice(0, state.messages.length, ...cut.messages);
      recover("context_truncated", `${cut.truncated} oldest observation(s) cut to a stub`);
    }
  }
  return { forced, offered: forced || state.repairPending ? [setup.submitTool] : setup.allTools };
}

/** Runs an answer's calls in order, recording each in the step; a valid submission stops the rest. */
async function runCalls(setup: TurnSetup, state: LoopState, calls: readonly ChatToolCall[], offered: readonly ToolDefinition[], step: TrajectoryStep, recover: (kind: RecoveryKind, detail: string) => void) {
  const context = { workspace: setup.workspace, instanceId: setup.instanceId, maxLocations: setup.maxLocations, offered, allTools: setup.allTools, previousCalls: state.previousCalls, repairTemplate: setup.prompts.repair };
  const keys = new Set<string>();
  let accepted: { prediction: Prediction; droppedPaths: string[] } | undefined;
  let rejected: string | undefined;
  try {
    for (const call of calls) {
      const outcome = await dispatchCall(context, call);
      if (outcome.recovery) recover(outcome.recovery.kind, outcome.recovery.detail);
      keys.add(callKey(call));
      state.messages.push(setup.protocol.observationMessage(call, outcome.observation));
      step.toolCalls.push({ name: call.name, arguments: argumentsRecord(call.arguments), observation: outcome.observation, ok: outcome.ok, observedAt: setup.iso() });
      if (outcome.rejected !== undefined) rejected = outcome.rejected;
      if (outcome.accepted) {
        accepted = outcome.accepted;
        break;
      }
    }
  } finally {
    state.previousCalls = keys;
  }
  return { accepted, rejected };
}

function countUsage(usage: TrajectoryUsage, completion: Completion): void {
  usage.apiCalls += 1;
  if (!completion.usage) return;
  usage.promptTokens += completion.usage.promptTokens;
  usage.completionTokens += completion.usage.completionTokens;
  usage.totalTokens += completion.usage.totalTokens;
}

function retryNote(retry: RetryRecord): string {
  return `retry after attempt ${retry.attempt} (${retry.error}, waited ${retry.waitedMs} ms): ${retry.message}`;
}
