import { messagesDigest, type Prediction, requestDelta, type TrajectoryExit } from "@loclab/schemas";
import { ModelCallError, type ModelErrorKind, ModelRequestError, type RetryRecord } from "@loclab/openai-http";
import type { SherlocToolbox, Workspace } from "@loclab/tools";
import type { ChatMessage, ChatToolCall, ToolDefinition } from "./chat-message.js";
import { PromptEstimator, messageChars, truncateOldObservations } from "./context-truncation.js";
import type { LoopBudget } from "./budget-exit.js";
import { argumentsRecord, dispatchCall } from "./dispatch-call.js";
import { type Completion, type ModelClient, shortenedNote } from "./model-client.js";
import { callKey, repeatedLine } from "./repetition.js";
import type { ToolProtocol } from "./tool-protocol.js";
import type { TrajectoryStep, TrajectoryUsage, TrajectoryWriter } from "./trajectory-writer.js";

/** The self-recovery branches (docs/definitions.md §1), as recorded in the result and the trajectory. */
export type RecoveryKind =
  | "malformed_call"
  | "unknown_tool"
  | "repeated_call"
  | "repeated_line"
  | "no_tool_call"
  | "context_truncated"
  | "forced_final"
  | "final_repair";

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
  /** Aborted when the attempt's wall budget runs out: the model call in flight is cancelled and the turn ends. */
  signal?: AbortSignal;
  /** The `sherloc` profile's tools (calls go to them, and its answer ends the run). */
  sherloc?: SherlocToolbox;
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
  /** The messages of the last request sent (the trajectory records each request as a change of it). */
  lastRequest: ChatMessage[];
  /** Prompt sizes, calibrated on the server's counts (context truncation). */
  estimator: PromptEstimator;
}

/** How a turn ended the run, if it did. */
export type TurnEnd =
  | { exit: "submitted"; prediction: Prediction; droppedPaths: string[] }
  | {
      exit: Exclude<TrajectoryExit, "submitted">;
      outcome: "model_error" | "invalid_final" | "budget_exhausted";
      error?: string;
      errorKind?: ModelErrorKind;
      budget?: LoopBudget;
    };

/** A 400 whose text says the prompt did not fit the window (vLLM's and `loclab serve`'s wording, OpenAI's). */
const CONTEXT_OVERFLOW = /maximum context length|context length exceeded|context_length_exceeded|max_model_len/i;

/** The server refused the request because the prompt is longer than its window (vLLM's and OpenAI's words, HTTP 400). */
export function isContextOverflow(error: unknown): boolean {
  return error instanceof ModelRequestError && error.status === 400 && CONTEXT_OVERFLOW.test(error.message);
}

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
  const { forced, offered, estimatedTokens, schemaChars } = prepareTurn(setup, state, recover);
  // The request's messages as a change of the last request's, so the trajectory holds exactly what the model saw.
  const step: TrajectoryStep = {
    toolCalls: [],
    startedAt: setup.iso(),
    messagesDigest: messagesDigest(state.messages),
    request: { ...requestDelta(state.lastRequest, state.messages), tools: offered.map((tool) => tool.name) },
  };
  state.lastRequest = [...state.messages];
  let retries: readonly RetryRecord[] = [];
  try {
    // Over the limit with nothing old left to cut (the estimate is rough; the limit keeps room
    // for the answer): sent anyway, the server decides; a refusal as too long ends the attempt.
    if (setup.contextLimitTokens !== undefined && estimatedTokens > setup.contextLimitTokens)
      notes.push(
        `context: the prompt (about ${estimatedTokens} tokens) is over the limit of ${setup.contextLimitTokens} with every old observation cut`,
      );
    let completion: Completion;
    const request = setup.protocol.request(state.messages, offered);
    try {
      completion = await setup.client.complete(setup.signal ? { ...request, signal: setup.signal } : request);
    } catch (error) {
      if (setup.signal?.aborted) {
        notes.push("wall budget: the attempt's wall budget ran out during the model call, which was cancelled");
        return { exit: "time_limit", outcome: "budget_exhausted", budget: "wall_time" };
      }
      if (!(error instanceof ModelCallError)) throw error;
      retries = error.retries;
      notes.push(`model error: ${error.message}`);
      if (isContextOverflow(error)) {
        return { exit: "context_limit", outcome: "budget_exhausted", budget: "context", error: error.message };
      }
      return {
        exit: "error",
        outcome: "model_error",
        error: error.message,
        errorKind: error.kind,
      };
    }
    retries = completion.retries;
    state.modelMs += completion.latencyMs;
    if (completion.shortened) notes.push(shortenedNote(completion.shortened));
    if (completion.usage)
      state.estimator.calibrate(messageChars(request.messages) + schemaChars, completion.usage.promptTokens);
    state.turns += 1;
    countUsage(state.usage, completion);
    const { message } = completion;
    Object.assign(step, {
      ...(message.content !== null ? { output: message.content } : {}),
      finishReason: completion.finishReason,
      ...(completion.usage ? { usage: completion.usage } : {}),
    });
    const { calls, problem } = setup.protocol.readCalls(message, turn);
    state.messages.push(setup.protocol.assistantMessage(message, calls));
    const ran = await runCalls(setup, state, calls, offered, step, recover);
    if (setup.signal?.aborted && !ran.accepted) {
      notes.push("wall budget: the attempt's wall budget ran out during the tool calls");
      return { exit: "time_limit", outcome: "budget_exhausted", budget: "wall_time" };
    }
    if (problem?.kind === "malformed" || (problem && !forced && !repairing)) {
      state.messages.push({ role: "user", content: setup.protocol.nudge(problem) });
      recover(problem.kind === "malformed" ? "malformed_call" : "no_tool_call", problem.problem);
    }
    const looping = message.content ? repeatedLine(message.content) : undefined;
    if (looping !== undefined && !ran.accepted) {
      state.messages.push({
        role: "user",
        content: `Error: you are repeating yourself: your output repeats the line ${JSON.stringify(looping.slice(0, 200))} over and over. Stop, and make a tool call that brings new information, or submit_localization.`,
      });
      recover("repeated_line", looping.slice(0, 200));
    }
    if (ran.accepted) return { exit: "submitted", ...ran.accepted };
    if (repairing)
      return {
        exit: "format_error",
        outcome: "invalid_final",
        error: ran.rejected ?? "the repair turn did not call submit_localization",
      };
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
    if (retries.length > 0)
      step.retries = retries.map(({ attempt, error, message, waitedMs }) => ({ attempt, error, message, waitedMs }));
    const harness = [...retries.map(retryNote), ...notes];
    if (harness.length > 0) step.error = harness.join("; ");
    await setup.trajectory.appendStep(step);
  }
}

/**
 * Before the model call: on the last turn the forced-final prompt (only submit_localization
 * offered, as in a repair turn), then context truncation when a limit is set.
 */
function prepareTurn(
  setup: TurnSetup,
  state: LoopState,
  recover: (kind: RecoveryKind, detail: string) => void,
): { forced: boolean; offered: readonly ToolDefinition[]; estimatedTokens: number; schemaChars: number } {
  const forced = !state.repairPending && state.turns === setup.maxTurns - 1;
  if (forced) {
    state.forcedAsked = true;
    state.messages.push({ role: "user", content: setup.prompts.forcedFinal });
    recover("forced_final", `last turn: only ${setup.submitTool.name} offered`);
  }
  const offered = forced || state.repairPending ? [setup.submitTool] : setup.allTools;
  // The tool schemas a request carries beside its messages (native tool calling), counted once per turn.
  const schemaChars = toolChars(setup.protocol.request([], offered).tools);
  const estimate = (messages: readonly ChatMessage[]) => state.estimator.estimate(messages, schemaChars);
  if (setup.contextLimitTokens !== undefined) {
    const cut = truncateOldObservations(state.messages, {
      limitTokens: setup.contextLimitTokens,
      estimate,
      isObservation: setup.protocol.isObservation,
    });
    if (cut.truncated > 0) {
      state.messages.splice(0, state.messages.length, ...cut.messages);
      recover("context_truncated", `${cut.truncated} oldest observation(s) cut to a stub`);
    }
  }
  return { forced, offered, estimatedTokens: estimate(state.messages), schemaChars };
}

/** The characters the tool schemas add to a request (native tool calling sends them beside the messages). */
function toolChars(tools: readonly ToolDefinition[] | undefined): number {
  return tools && tools.length > 0 ? JSON.stringify(tools).length : 0;
}

/** Runs an answer's calls in order, recording each in the step; a valid submission stops the rest. */
async function runCalls(
  setup: TurnSetup,
  state: LoopState,
  calls: readonly ChatToolCall[],
  offered: readonly ToolDefinition[],
  step: TrajectoryStep,
  recover: (kind: RecoveryKind, detail: string) => void,
) {
  const context = {
    workspace: setup.workspace,
    instanceId: setup.instanceId,
    maxLocations: setup.maxLocations,
    offered,
    allTools: setup.allTools,
    previousCalls: state.previousCalls,
    repairTemplate: setup.prompts.repair,
    ...(setup.sherloc ? { sherloc: setup.sherloc } : {}),
  };
  const keys = new Set<string>();
  let accepted: { prediction: Prediction; droppedPaths: string[] } | undefined;
  let rejected: string | undefined;
  try {
    for (const call of calls) {
      if (setup.signal?.aborted) break;
      const outcome = await untilAborted(dispatchCall(context, call), setup.signal);
      if (outcome === undefined) break;
      if (outcome.recovery) recover(outcome.recovery.kind, outcome.recovery.detail);
      keys.add(callKey(call));
      state.messages.push(setup.protocol.observationMessage(call, outcome.observation));
      step.toolCalls.push({
        name: call.name,
        arguments: argumentsRecord(call.arguments),
        observation: outcome.observation,
        ok: outcome.ok,
        observedAt: setup.iso(),
      });
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

/**
 * The tool call's outcome, or undefined when `signal` aborts first: the attempt stops waiting.
 * In-process tools cannot be interrupted mid-computation, so the call is abandoned, not killed;
 * its result is dropped.
 */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return work;
  if (signal.aborted) return undefined;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
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
