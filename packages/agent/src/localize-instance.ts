import type { ModelErrorKind, RetryRecord } from "@loclab/openai-http";
import { type Prediction, type Provenance, type LocalizeOutcome } from "@loclab/schemas";
import { SherlocToolbox, type SherlocToolOptions, toolDefinitions, type Workspace } from "@loclab/tools";
import { SHERLOC_ANSWER, SHERLOC_PROTOCOL, SHERLOC_TOOLS } from "./sherloc-protocol.js";
import { type BudgetLimits, budgetExit, type LoopBudget } from "./budget-exit.js";
import type { ToolDefinition } from "./chat-message.js";
import type { ModelClient } from "./model-client.js";
import { fillTemplate, type PromptName, readPromptTemplate as shippedPrompt } from "./prompt-templates.js";
import { submitLocalizationTool, withRepositoryPaths } from "./submit-localization.js";
import { type LoopState, type Recovery, takeTurn, type TurnEnd, type TurnSetup } from "./take-turn.js";
import { toolProtocol, type ToolMode } from "./tool-protocol.js";
import type { ToolCallDecoding } from "./tool-call-decoding.js";
import { PromptEstimator } from "./context-truncation.js";
import type { ChatMessage } from "./chat-message.js";
import { createHash } from "node:crypto";
import { openTrajectory, type TrajectoryExit, type TrajectoryUsage } from "./trajectory-writer.js";

/** How a localization run ended (the schema's `LOCALIZE_OUTCOMES`). */
export type { LocalizeOutcome } from "@loclab/schemas";

export interface LocalizeInstanceOptions {
  instance: { instance_id: string; problem_statement: string };
  /**
   * What the prompt calls the task (the user template's `{{taskLabel}}`). The instance id is
   * never shown: it names the repository and the upstream issue, the very knowledge the controls
   * remove. Default `task-` and 8 hex digits of the id's sha256; runs pass a label of their own.
   */
  taskLabel?: string;
  workspace: Workspace;
  client: ModelClient;
  /** `<dir>/<instance_id>.traj.jsonl`, the loclab trajectory format. */
  trajectoryPath: string;
  /** Model calls, the forced final turn included (a final repair may add one). Default 20. */
  maxTurns?: number;
  /** Total tokens (prompt + completion, summed over calls) after which no call is made. */
  maxTotalTokens?: number;
  /**
   * The attempt's wall budget: no call is made after it (checked with `now`), and, with the
   * real clock (no `now` given), a timer cancels the model call or tool call in flight when it
   * runs out; the attempt then ends with exit `time_limit`, its steps kept.
   */
  maxWallMs?: number;
  /** Most locations a submission may have. Default 8 (FGL). */
  maxLocations?: number;
  /**
   * Prompt tokens above which the oldest observations are cut to a stub, estimated from the
   * characters sent and calibrated on the server's own counts (`PromptEstimator`). The limit
   * keeps room for the answer and the estimate is rough, so a prompt still over it is sent and
   * the server decides: when it refuses the prompt as too long (HTTP 400), the attempt ends
   * with exit `context_limit`, not as a model error. Runs default it to the server's window
   * (`max_model_len`) less the output budget.
   */
  contextLimitTokens?: number;
  /**
   * `native` (default): tools go in the request's `tools` field and come back as tool calls.
   * `text`: for servers without a tool-call parser: no `tools` are sent; the system prompt
   * (prompts/system-text.md) asks for one ```json block `{"tool", "arguments"}` per turn, and
   * observations come back as user messages.
   */
  toolMode?: ToolMode;
  /**
   * `free` (default, as SHERLOC's and FGL's harnesses decode) or `constrained`: every answer is
   * decoded by the JSON Schema of one valid call (tool-call-decoding.ts), on any server that
   * enforces `response_format` (vLLM's structured outputs, `loclab serve`'s grammar). Recorded
   * in the trajectory header. Not for the `sherloc` profile (its protocol is free text).
   */
  toolCalls?: ToolCallDecoding;
  /** Epoch milliseconds; injectable for tests. Default `Date.now`. */
  now?: () => number;
  /**
   * Prompt templates to use instead of the shipped ones (`packages/agent/prompts/<name>.md`),
   * by name; same placeholders. A run spec's `localizer.promptsDir` arrives here.
   */
  prompts?: Partial<Record<PromptName, string>>;
  /** Written into the trajectory header (the log is the contract); the caller's run spec. */
  provenance?: Provenance;
  /**
   * `loclab` (default): loclab's tools, prompts and `submit_localization`. `sherloc`: the
   * localizer as SHERLOC runs it (docs/definitions.md §1, "the sherloc profile"): its text
   * protocol (`<tool_call>` JSON blocks, a `<findings>` and `<locations>` answer), its four
   * tools and their settings (`SherlocToolbox`), the filtered repository tree in the first
   * message; `toolMode` and `maxLocations` do not apply.
   */
  profile?: LocalizerProfile;
  /** Settings of the `sherloc` profile's tools (`SherlocToolbox`): its caps, and the original names of a shuffled tree. */
  sherlocTools?: SherlocToolOptions;
}

/** The localizer profiles: loclab's own, or SHERLOC's protocol and tools. */
export type LocalizerProfile = "loclab" | "sherloc";

export interface LocalizeResult {
  outcome: LocalizeOutcome;
  /** The trajectory's exit, as written in its header (`submitted`, `step_limit`, `time_limit`, `error`, …). */
  exit: TrajectoryExit;
  /** Present for `finished` and `forced_final`. */
  prediction?: Prediction;
  /** Model calls made (answered ones; a call that failed in transport is not counted). */
  turns: number;
  usage: TrajectoryUsage;
  /** Submitted paths that matched no file and were left out of the prediction. */
  droppedPaths: string[];
  /** For `budget_exhausted`: which budget. */
  budget?: LoopBudget;
  /** For `model_error` and `invalid_final`: what went wrong. */
  error?: string;
  /** For `model_error`: the transport failed (after the client's retries: the server's doing) or the request was refused (4xx). */
  errorKind?: ModelErrorKind;
  recoveries: Recovery[];
  /** The transport faults the client retried over the whole run, in order. */
  retries: RetryRecord[];
  /** Wall time inside answered model calls; the rest of an attempt's time is the harness's (tools, prompts, logging). */
  modelMs: number;
  /** The first system and user messages as sent (what a leak audit reads). */
  initialMessages: ChatMessage[];
}

/**
 * The structured diagnostic localizer (docs/definitions.md §1): one model, four read-only tools
 * and `submit_localization`, at most `maxTurns` turns (one more when a refused submission is
 * given its repair turn). Each turn (`takeTurn`): call the model, run its tool calls, append
 * the observations, log the step. The conversation is the only state. Exits are typed
 * (`LocalizeOutcome`); the recovery branches are named in `Recovery`. Native and text tool
 * calling differ only in their `ToolProtocol`. The trajectory gets one appended line per step
 * as it happens; a harness error still ends it (exit `error`) before it is rethrown.
 *
 * @example
 * const result = await localizeInstance({ instance, workspace, client, trajectoryPath: `runs/a/${instance.instance_id}.traj.jsonl` });
 * result.outcome; // "finished"
 * result.prediction?.files; // ["calc/ops.py"]
 */
export async function localizeInstance(options: LocalizeInstanceOptions): Promise<LocalizeResult> {
  const { instance, client } = options;
  const limits: BudgetLimits = {
    maxTurns: options.maxTurns ?? 20,
    ...(options.maxTotalTokens !== undefined ? { maxTotalTokens: options.maxTotalTokens } : {}),
    ...(options.maxWallMs !== undefined ? { maxWallMs: options.maxWallMs } : {}),
  };
  const maxLocations = options.maxLocations ?? 8;
  const sherloc =
    options.profile === "sherloc" ? new SherlocToolbox(options.workspace, options.sherlocTools ?? {}) : undefined;
  if (sherloc && options.toolCalls === "constrained")
    throw new RangeError('toolCalls "constrained" does not apply to the sherloc profile (its answers are free text)');
  const protocol = sherloc ? SHERLOC_PROTOCOL : toolProtocol(options.toolMode ?? "native", options.toolCalls ?? "free");
  if (!Number.isInteger(limits.maxTurns) || limits.maxTurns < 1)
    throw new RangeError("maxTurns must be a positive integer");
  if (!Number.isInteger(maxLocations) || maxLocations < 1)
    throw new RangeError("maxLocations must be a positive integer");
  const now = options.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();
  const startedMs = now();
  const readPromptTemplate = async (name: PromptName) => options.prompts?.[name] ?? shippedPrompt(name);
  let submitTool: ToolDefinition;
  let allTools: ToolDefinition[];
  let system: string;
  let user: string;
  if (sherloc) {
    allTools = [...SHERLOC_TOOLS];
    submitTool = allTools.find((tool) => tool.name === SHERLOC_ANSWER) as ToolDefinition;
    system = fillTemplate(await readPromptTemplate("system-sherloc"), {
      maxTurns: String(limits.maxTurns),
      extraBudgets: extraBudgets(limits),
    });
    user = fillTemplate(await readPromptTemplate("user-sherloc"), {
      problemStatement: instance.problem_statement,
      repositoryTree: await sherloc.repoTree(),
    });
  } else {
    submitTool = submitLocalizationTool(maxLocations);
    if (protocol.decoding === "constrained") {
      const files = (await options.workspace.files()).filter((entry) => entry.kind === "file");
      submitTool = withRepositoryPaths(
        submitTool,
        files.map((entry) => entry.path),
      );
    }
    allTools = [
      ...toolDefinitions().map(({ function: tool }) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      })),
      submitTool,
    ];
    system = fillTemplate(await readPromptTemplate(protocol.systemTemplate), {
      tools: protocol.describeTools(allTools),
      maxTurns: String(limits.maxTurns),
      maxLocations: String(maxLocations),
      extraBudgets: extraBudgets(limits),
    });
    const taskLabel =
      options.taskLabel ?? `task-${createHash("sha256").update(instance.instance_id).digest("hex").slice(0, 8)}`;
    user = fillTemplate(await readPromptTemplate("user"), { taskLabel, problemStatement: instance.problem_statement });
  }
  const trajectory = await openTrajectory(options.trajectoryPath, {
    instanceId: instance.instance_id,
    model: client.model,
    limits: { steps: limits.maxTurns, ...(limits.maxWallMs !== undefined ? { seconds: limits.maxWallMs / 1000 } : {}) },
    startedAt: new Date(startedMs).toISOString(),
    ...(options.provenance ? { provenance: options.provenance } : {}),
    decoding: { toolCalls: protocol.decoding },
  });
  const setup: TurnSetup = {
    protocol,
    client,
    workspace: options.workspace,
    instanceId: instance.instance_id,
    maxTurns: limits.maxTurns,
    maxLocations,
    allTools,
    submitTool,
    trajectory,
    iso,
    prompts: {
      forcedFinal: await readPromptTemplate(sherloc ? "forced-final-sherloc" : "forced-final"),
      repair: await readPromptTemplate("final-repair"),
    },
    ...(sherloc ? { sherloc } : {}),
    ...(options.contextLimitTokens !== undefined ? { contextLimitTokens: options.contextLimitTokens } : {}),
  };
  // The wall budget as a timer on the real clock: it cancels what is in flight (an injected
  // clock keeps only the check between turns, so tests of it do not race real time).
  const deadline = new AbortController();
  const timer =
    limits.maxWallMs !== undefined && options.now === undefined
      ? setTimeout(() => deadline.abort(), Math.max(0, limits.maxWallMs - (now() - startedMs)))
      : undefined;
  if (timer) setup.signal = deadline.signal;
  const state: LoopState = {
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
    turns: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, apiCalls: 0 },
    recoveries: [],
    previousCalls: new Set(),
    forcedAsked: false,
    repairPending: false,
    retries: [],
    modelMs: 0,
    lastRequest: [],
    estimator: new PromptEstimator(),
  };
  const initialMessages = state.messages.slice(0, 2);
  const end = async (
    exit: TrajectoryExit,
    result: Omit<
      LocalizeResult,
      "turns" | "usage" | "recoveries" | "droppedPaths" | "retries" | "modelMs" | "exit" | "initialMessages"
    > & { droppedPaths?: string[] },
  ): Promise<LocalizeResult> => {
    await trajectory.finish({ exit, usage: state.usage, endedAt: iso() });
    clearTimeout(timer);
    return {
      droppedPaths: [],
      ...result,
      exit,
      turns: state.turns,
      usage: state.usage,
      recoveries: state.recoveries,
      retries: state.retries,
      modelMs: state.modelMs,
      initialMessages,
    };
  };

  for (;;) {
    const budget = budgetExit(
      {
        turns: state.turns,
        totalTokens: state.usage.totalTokens,
        elapsedMs: now() - startedMs,
        repairPending: state.repairPending,
      },
      limits,
    );
    if (budget) return end(budget.exit, { outcome: "budget_exhausted", budget: budget.budget });
    let ended: TurnEnd | undefined;
    try {
      ended = await takeTurn(setup, state);
    } catch (error) {
      clearTimeout(timer);
      await trajectory.finish({ exit: "error", usage: state.usage, endedAt: iso() });
      throw error;
    }
    if (!ended) continue;
    if (ended.exit === "submitted")
      return end("submitted", {
        outcome: state.forcedAsked ? "forced_final" : "finished",
        prediction: ended.prediction,
        droppedPaths: ended.droppedPaths,
      });
    return end(ended.exit, {
      outcome: ended.outcome,
      ...(ended.outcome === "budget_exhausted" ? { budget: ended.budget ?? ("turns" as const) } : {}),
      ...(ended.error !== undefined ? { error: ended.error } : {}),
      ...(ended.errorKind ? { errorKind: ended.errorKind } : {}),
    });
  }
}

function extraBudgets(limits: BudgetLimits): string {
  const parts: string[] = [];
  if (limits.maxTotalTokens !== undefined) parts.push(`${limits.maxTotalTokens} tokens in all`);
  if (limits.maxWallMs !== undefined) parts.push(`${Math.round(limits.maxWallMs / 1000)} seconds of wall time`);
  return parts.map((part) => `, ${part}`).join("");
}
