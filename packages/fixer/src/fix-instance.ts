import {
  argumentsRecord,
  type ChatMessage,
  type Completion,
  fillTemplate,
  isContextOverflow,
  type ModelClient,
  openTrajectory,
  shortenedNote,
  type TrajectoryStep,
  type TrajectoryUsage,
} from "@loclab/agent";
import { ModelCallError } from "@loclab/openai-http";
import { messagesDigest, requestDelta } from "@loclab/schemas";
import { compactionDue, compactMessages } from "./compaction.js";
import { FGL_SINGLE_AGENT } from "./fixer-limits.js";
import { type FixerPromptName, readFixerPrompt } from "./fixer-prompts.js";
import { fixerToolDefinitions } from "./fixer-tool-schemas.js";
import { FixerToolbox, type PatchOverLimit } from "./fixer-toolbox.js";
import { finalPatch } from "./final-patch.js";
import { dirname, relative } from "node:path";

import type {
  FixerCompactionRecord,
  FixerExit,
  FixerLoopCandidate,
  FixerRecovery,
  FixInstanceOptions,
  FixResult,
} from "./fix-instance-types.js";

/**
 * The fixer (FGL's harness, single agent): one model with six tools in the task's sandbox. Each
 * turn calls the model, runs its tool calls in order, and appends the step to the trajectory
 * before the next call. The wall budget is the supervisor's, not the loop's: a timer aborts one
 * signal that cancels the model request in flight and kills a running command's process group,
 * so an attempt ends within seconds of its budget whatever it was doing; the repository's diff
 * at that moment is the patch. Tool problems are answers to the model (`FixerToolbox`); a turn
 * without a tool call gets a nudge (a named recovery); an answer cut at the output limit is
 * recorded as a loop candidate with its time.
 */
export async function fixInstance(options: FixInstanceOptions): Promise<FixResult> {
  const limits = options.limits ?? FGL_SINGLE_AGENT;
  const maxTurns = options.maxTurns ?? limits.callBudget * 2;
  const toolbox = new FixerToolbox(options.sandbox, limits, {
    ...(options.localizer ? { localizer: options.localizer } : {}),
    ...(options.patchLimits ? { patchLimits: options.patchLimits } : {}),
    instance: options.instance,
  });
  const prompt = async (name: FixerPromptName) => options.prompts?.[name] ?? readFixerPrompt(name);
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: fillTemplate(await prompt("system"), {
        workdir: options.sandbox.workdir,
        tools: toolList(options.localizer !== undefined),
        callBudget: String(limits.callBudget),
        minutes: String(Math.round((limits.wallMs / 60_000) * 10) / 10),
      }),
    },
    {
      role: "user",
      content: fillTemplate(await prompt("user"), {
        problemStatement: options.instance.problem_statement,
        handOff: options.handOff ? `\n\n${options.handOff.trimEnd()}` : "",
      }),
    },
  ];
  const tools = fixerToolDefinitions({ twoAgents: options.localizer !== undefined });
  const started = Date.now();
  const trajectory = await openTrajectory(options.trajectoryPath, {
    instanceId: options.instance.instance_id,
    model: options.client.model,
    limits: { calls: limits.callBudget, seconds: limits.wallMs / 1000, steps: maxTurns },
    startedAt: new Date(started).toISOString(),
    ...(options.provenance ? { provenance: options.provenance } : {}),
    decoding: { toolCalls: options.toolCalls ?? "free" },
  });
  const supervisor = new AbortController();
  const deadline = setTimeout(() => supervisor.abort(new Error("the attempt's wall budget ran out")), limits.wallMs);
  // The budget is spent when the supervisor fired, or when the clock says so: a localizer session,
  // timed against the same deadline, can end a few milliseconds before the supervisor's timer fires.
  const outOfTime = () => {
    if (!supervisor.signal.aborted && Date.now() >= started + limits.wallMs)
      supervisor.abort(new Error("the attempt's wall budget ran out"));
    return supervisor.signal.aborted;
  };
  const usage: TrajectoryUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, apiCalls: 0 };
  const before = { promptTokens: 0, completionTokens: 0, totalTokens: 0, apiCalls: 0, ms: 0 };
  let firstEditAt: number | undefined;
  const loops: FixerLoopCandidate[] = [];
  const recoveries: FixerRecovery[] = [];
  const toolResults: FixResult["toolResults"] = [];
  const localizerUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, apiCalls: 0, turns: 0 };
  const localizerTrajectories: string[] = [];
  let lastRequest: ChatMessage[] = [];
  let exit: FixerExit | undefined;
  let submitted: string | undefined;
  let patchOverLimit: PatchOverLimit | undefined;
  let error: string | undefined;
  let errorKind: ModelCallError["kind"] | undefined;
  let modelMs = 0;
  let turns = 0;
  // The trajectory line the next step writes (a compaction's summary call is a line of its own).
  let step = 0;
  const compactions: FixerCompactionRecord[] = [];
  let summaries: string[] = [];
  // Where each fixer turn's answer sits in `messages`, and what the last prompt held.
  let turnStarts: number[] = [];
  let lastPromptTokens = 0;
  let lastCompactionTurn = 0;
  // One model call of the fixer's: in the totals, and in the localization phase until the first edit.
  const countUsage = (spent: Completion["usage"]) => {
    addUsage(usage, spent);
    if (firstEditAt === undefined) addUsage(before, spent);
  };
  /** A model call that failed: the exit it means (time_limit, context_limit, error), noted on the step. */
  const failedCall = (caught: unknown, record: TrajectoryStep): FixerExit => {
    if (supervisor.signal.aborted) {
      record.error = "wall budget: the model call in flight was cancelled";
      return "time_limit";
    }
    if (!(caught instanceof ModelCallError)) throw caught;
    error = caught.message;
    errorKind = caught.kind;
    record.error = `model error: ${caught.message}`;
    record.retries = caught.retries.map((retry) => ({ ...retry }));
    return isContextOverflow(caught) ? "context_limit" : "error";
  };
  const compaction = options.compaction;
  try {
    for (; exit === undefined; step += 1) {
      if (turns >= maxTurns) {
        exit = "step_limit";
        break;
      }
      if (
        compaction &&
        compactionDue(compaction, { turns, lastCompactionTurn, lastPromptTokens, turnsInContext: turnStarts.length })
      ) {
        const summaryRequest: ChatMessage[] = [...messages, { role: "user", content: await prompt("compaction") }];
        const record: TrajectoryStep = {
          toolCalls: [],
          startedAt: new Date().toISOString(),
          messagesDigest: messagesDigest(summaryRequest),
          request: { ...requestDelta(lastRequest, summaryRequest), tools: [] },
        };
        lastRequest = summaryRequest;
        let summary: Completion;
        try {
          summary = await options.client.complete({ messages: summaryRequest, signal: supervisor.signal });
        } catch (caught) {
          exit = failedCall(caught, record);
          record.endedAt = new Date().toISOString();
          await trajectory.appendStep(record);
          break;
        }
        countUsage(summary.usage);
        modelMs += summary.latencyMs;
        const compacted = compactMessages(
          messages,
          turnStarts,
          [...summaries, summary.message.content ?? ""],
          compaction,
        );
        messages.splice(0, messages.length, ...compacted.messages);
        turnStarts = compacted.turnStarts;
        summaries = compacted.summaries;
        const replaced = compacted.turnsReplaced;
        record.output = summary.message.content ?? "";
        record.finishReason = summary.finishReason;
        if (summary.usage) record.usage = { ...summary.usage };
        record.error = `compaction: ${replaced} turn(s) replaced by a summary (the last prompt held ${lastPromptTokens} tokens)`;
        record.endedAt = new Date().toISOString();
        await trajectory.appendStep(record);
        compactions.push({ step, turnsReplaced: replaced, promptTokens: lastPromptTokens });
        lastCompactionTurn = turns;
        continue;
      }
      const record: TrajectoryStep = {
        toolCalls: [],
        startedAt: new Date().toISOString(),
        messagesDigest: messagesDigest(messages),
        request: { ...requestDelta(lastRequest, messages), tools: tools.map((tool) => tool.name) },
      };
      lastRequest = [...messages];
      let completion: Awaited<ReturnType<ModelClient["complete"]>>;
      try {
        completion = await options.client.complete({
          messages,
          tools,
          signal: supervisor.signal,
          ...(options.toolCalls === "constrained" ? { constrainToolCall: true } : {}),
        });
      } catch (caught) {
        exit = failedCall(caught, record);
        record.endedAt = new Date().toISOString();
        await trajectory.appendStep(record);
        break;
      }
      turns += 1;
      modelMs += completion.latencyMs;
      const spent = completion.usage;
      countUsage(spent);
      lastPromptTokens = spent?.promptTokens ?? 0;
      record.output = completion.message.content ?? "";
      record.finishReason = completion.finishReason;
      if (spent) record.usage = { ...spent };
      if (completion.retries.length > 0) record.retries = completion.retries.map((retry) => ({ ...retry }));
      // An answer the server cut short of max_tokens is the window's doing, not a loop.
      if (completion.shortened) record.error = shortenedNote(completion.shortened);
      else if (completion.finishReason === "length")
        loops.push({ step, completionTokens: spent?.completionTokens, ms: completion.latencyMs });
      const calls = completion.message.toolCalls;
      turnStarts.push(messages.length);
      messages.push({
        role: "assistant",
        content: completion.message.content,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
      if (calls.length === 0) {
        recoveries.push({ kind: "no-tool-call", step });
        messages.push({ role: "user", content: await prompt("no-tool-call") });
        record.error = "recovery: no tool call; nudged";
      }
      for (const call of calls) {
        const result = await toolbox.call(call.name, call.arguments, {
          signal: supervisor.signal,
          deadline: started + limits.wallMs,
        });
        const { content, ...outcome } = result;
        toolResults.push(outcome);
        messages.push({ role: "tool", toolCallId: call.id, content });
        record.toolCalls.push({
          name: call.name,
          arguments: argumentsRecord(call.arguments),
          observation: content,
          ok: result.error === undefined,
          ...(result.command?.exitCode != null ? { returnCode: result.command.exitCode } : {}),
          observedAt: new Date().toISOString(),
          ...(result.localizer
            ? { subTrajectory: relative(dirname(options.trajectoryPath), result.localizer.trajectoryPath) }
            : {}),
        });
        if (result.localizer) {
          localizerTrajectories.push(result.localizer.trajectoryPath);
          localizerUsage.turns += result.localizer.calls;
          addUsage(localizerUsage, result.localizer.usage, result.localizer.usage.apiCalls);
        }
        if (
          firstEditAt === undefined &&
          result.error === undefined &&
          (call.name === "edit_file" || call.name === "write_file")
        ) {
          firstEditAt = Date.now();
          before.ms = firstEditAt - started;
        }
        if (outOfTime()) {
          exit = "time_limit";
          record.error = "wall budget: the attempt's time ran out during a tool call, which was cancelled";
          break;
        }
        if (result.patch !== undefined) {
          submitted = result.patch;
          if (result.patchOverLimit) patchOverLimit = result.patchOverLimit;
          exit = "submitted";
          break;
        }
        if (result.error === "budget-exhausted") {
          exit = "call_limit";
          break;
        }
        if (result.command?.diskBytes !== undefined) {
          exit = "disk_limit";
          record.error = `disk limit: the container's writable layer passed ${options.sandbox.limits.diskMiB} MiB`;
          break;
        }
      }
      record.endedAt = new Date().toISOString();
      await trajectory.appendStep(record);
      if (exit === undefined && outOfTime()) exit = "time_limit";
    }
  } catch (caught) {
    clearTimeout(deadline);
    await trajectory.finish({ exit: "error", usage, endedAt: new Date().toISOString() });
    throw caught;
  }
  clearTimeout(deadline);
  let patch = submitted;
  if (patch === undefined) {
    const final = await finalPatch(options.sandbox, toolbox.patchLimits);
    patch = final.patch;
    patchOverLimit = final.patchOverLimit;
  }
  const ended = Date.now();
  await trajectory.finish({ exit: exit!, usage, endedAt: new Date(ended).toISOString(), patch });
  if (firstEditAt === undefined) before.ms = ended - started;
  const after = {
    promptTokens: usage.promptTokens - before.promptTokens,
    completionTokens: usage.completionTokens - before.completionTokens,
    totalTokens: usage.totalTokens - before.totalTokens,
    apiCalls: usage.apiCalls - before.apiCalls,
    ms: firstEditAt === undefined ? 0 : ended - firstEditAt,
  };
  return {
    exit: exit!,
    patch,
    calls: toolbox.callsUsed,
    turns,
    usage,
    phases: { beforeFirstEdit: before, afterFirstEdit: after },
    loops,
    recoveries,
    compactions,
    toolResults,
    agents: { fixer: { ...usage }, localizer: localizerUsage },
    localizerTrajectories,
    ...(patchOverLimit ? { patchOverLimit } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(errorKind !== undefined ? { errorKind } : {}),
    modelMs,
    wallMs: ended - started,
  };
}

/** Adds a call's tokens (and its model calls, one by default) to a running total. */
function addUsage(into: TrajectoryUsage, spent: Partial<TrajectoryUsage> | undefined, calls = 1): void {
  into.apiCalls += calls;
  into.promptTokens += spent?.promptTokens ?? 0;
  into.completionTokens += spent?.completionTokens ?? 0;
  into.totalTokens += spent?.totalTokens ?? 0;
}

/** The tools as the system prompt names them. */
function toolList(twoAgents: boolean): string {
  const tools = [
    "run_command (bash in the repository)",
    "read_file",
    "edit_file (replace one exact occurrence of a text)",
    "write_file",
    "get_status (your current changes)",
    "submit_patch (hand in your changes and end)",
  ];
  if (twoAgents)
    tools.push("localizer (a second agent that finds where the issue is; its turns count against your budget)");
  return `${tools.slice(0, -1).join(", ")} and ${tools.at(-1)}`;
}
