import { basename } from "node:path";
import { formatZodError } from "@loclab/schemas";
import { z } from "zod";
import type {
  StepSink,
  RecordedToolCall,
  TrajectoryFormat,
  TrajectoryHeader,
  TrajectoryStep,
} from "../model/trajectory.js";
import { visitJsonDocument } from "../read/visit-json-document.js";
import type { TrajectoryReadOptions } from "./read-options.js";

const number = z.number().nullish();
const text = z.string().nullish();

/** Message content: a string, or (multimodal) a list of parts whose text parts are joined. */
const ContentSchema = z.union([z.string(), z.array(z.looseObject({ type: text, text: text }))]).nullish();

const OpenAiToolCallSchema = z.looseObject({
  id: text,
  function: z.looseObject({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const ResponseSchema = z.looseObject({
  created: number,
  choices: z.array(z.looseObject({ finish_reason: text })).nullish(),
  usage: z
    .looseObject({ prompt_tokens: number, completion_tokens: number, total_tokens: number, cost: number })
    .nullish(),
});

/** One message of `messages[]`, as mini-swe-agent 1.x and 2.x write them (only what is read). */
export const MiniSweAgentMessageSchema = z.looseObject({
  role: z.string(),
  content: ContentSchema,
  tool_calls: z.array(OpenAiToolCallSchema).nullish(),
  tool_call_id: text,
  extra: z
    .looseObject({
      actions: z.array(z.looseObject({ command: z.string(), tool_call_id: text })).nullish(),
      response: ResponseSchema.nullish(),
      cost: number,
      timestamp: number,
      returncode: number,
      interrupt_type: text,
      exit_status: text,
      submission: text,
    })
    .nullish(),
});
export type MiniSweAgentMessage = z.infer<typeof MiniSweAgentMessageSchema>;

/** `info` of a mini-swe-agent .traj.json (only what is read). */
export const MiniSweAgentInfoSchema = z.looseObject({
  exit_status: text,
  submission: text,
  mini_version: text,
  model_stats: z.looseObject({ instance_cost: number, api_calls: number }).nullish(),
  config: z
    .looseObject({
      agent: z.looseObject({ step_limit: number, cost_limit: number }).nullish(),
      model: z.looseObject({ model_name: text }).nullish(),
    })
    .nullish(),
});

/** The marker a mini-swe-agent action echoes to hand in its work (COMPLETE_… today, MINI_SWE_AGENT_FINAL_OUTPUT in early 1.x). */
const SUBMIT_MARKERS = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT/;
/** mini-swe-agent 1.x's action_regex: the action is the only ```bash block of the output. */
const BASH_BLOCK = /```bash\s*\n([\s\S]*?)\n```/g;

/** A call or step being assembled: calls keep their tool_call_id until the step is complete. */
type PendingCall = RecordedToolCall & { id?: string };
type PendingStep = Omit<TrajectoryStep, "toolCalls"> & { toolCalls: PendingCall[] };

function contentText(content: MiniSweAgentMessage["content"]): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text ?? "").join("");
}

function shellCall(command: string): RecordedToolCall {
  return { name: SUBMIT_MARKERS.test(command) ? "submit" : "bash", arguments: { command } };
}

function openAiCall(call: z.infer<typeof OpenAiToolCallSchema>): PendingCall {
  const raw = call.function.arguments;
  let args: Record<string, unknown>;
  if (typeof raw === "string") {
    try {
      const parsed: unknown = JSON.parse(raw);
      args =
        typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : { value: parsed };
    } catch {
      args = { raw };
    }
  } else {
    args = raw ?? {};
  }
  const command = typeof args.command === "string" ? args.command : undefined;
  const name =
    call.function.name === "bash" && command !== undefined && SUBMIT_MARKERS.test(command)
      ? "submit"
      : call.function.name;
  return { name, arguments: args, ...(call.id ? { id: call.id } : {}) };
}

/**
 * Turns mini-swe-agent's message list into steps, one message at a time (so a streamed file
 * never holds more than one step). One rule set serves both generations:
 * - an assistant message opens a step; its calls are `tool_calls` (2.x tool calling), else
 *   `extra.actions` (2.x text mode), else the single ```bash block of the text (1.x; zero or
 *   several blocks is the harness's FormatError, so no call);
 * - a `tool` message (2.x) is the observation of the call with its tool_call_id;
 * - a `user` message after the first assistant message is the observation of the step's
 *   unanswered call (1.x; also the submission text after the submit action), or, when no call
 *   is waiting or it carries `extra.interrupt_type`, a harness error (format error) on the
 *   step, or on a step of its own when the rejected output was not logged (2.x);
 * - the `exit` message (2.x) carries the exit status and submission.
 */
class MiniStepBuilder {
  private current: PendingStep | undefined;
  private index = 0;
  private seenAssistant = false;
  sawToolRole = false;
  exit: { status?: string; submission?: string } = {};

  constructor(private readonly sink: StepSink) {}

  message(message: MiniSweAgentMessage): void {
    const extra = message.extra ?? undefined;
    switch (message.role) {
      case "assistant":
        this.flush();
        this.seenAssistant = true;
        this.current = this.assistantStep(message);
        return;
      case "tool": {
        this.sawToolRole = true;
        const step = this.current ?? this.open();
        const call =
          step.toolCalls.find((c) => c.id !== undefined && c.id === message.tool_call_id) ??
          step.toolCalls.find((c) => c.observation === undefined);
        const observedAt = extra?.timestamp ?? undefined;
        if (call) {
          call.observation = contentText(message.content);
          if (typeof extra?.returncode === "number") call.returnCode = extra.returncode;
          if (observedAt !== undefined) call.observedAt = observedAt;
        }
        if (observedAt !== undefined) step.endedAt = Math.max(step.endedAt ?? observedAt, observedAt);
        return;
      }
      case "user": {
        if (!this.seenAssistant) return; // the task prompt
        const body = contentText(message.content);
        const waiting = this.current?.toolCalls.find((c) => c.observation === undefined);
        if (waiting && !extra?.interrupt_type) {
          waiting.observation = body;
          return;
        }
        if (this.current && this.current.toolCalls.length === 0 && this.current.error === undefined) {
          this.current.error = body;
          return;
        }
        this.flush();
        this.current = this.open();
        this.current.error = body;
        return;
      }
      case "exit":
        this.exit = {
          ...(extra?.exit_status ? { status: extra.exit_status } : {}),
          ...(typeof extra?.submission === "string" ? { submission: extra.submission } : {}),
        };
        return;
      default:
        return; // system
    }
  }

  private open(): PendingStep {
    return { index: this.index, toolCalls: [] };
  }

  private assistantStep(message: MiniSweAgentMessage): PendingStep {
    const output = contentText(message.content);
    const extra = message.extra ?? undefined;
    let toolCalls: PendingCall[];
    if (message.tool_calls && message.tool_calls.length > 0) {
      toolCalls = message.tool_calls.map(openAiCall);
    } else if (extra?.actions && extra.actions.length > 0) {
      toolCalls = extra.actions.map((action) => ({
        ...shellCall(action.command),
        ...(action.tool_call_id ? { id: action.tool_call_id } : {}),
      }));
    } else {
      const blocks = [...output.matchAll(BASH_BLOCK)];
      toolCalls = blocks.length === 1 ? [shellCall((blocks[0]?.[1] ?? "").trim())] : [];
    }
    const response = extra?.response ?? undefined;
    const finishReason = response?.choices?.[0]?.finish_reason ?? undefined;
    const usage = response?.usage ?? undefined;
    const cost = extra?.cost ?? usage?.cost ?? undefined;
    const step: PendingStep = { index: this.index, output, toolCalls };
    if (finishReason) step.finishReason = finishReason;
    if (usage || cost !== undefined) {
      step.usage = {
        ...(typeof usage?.prompt_tokens === "number" ? { promptTokens: usage.prompt_tokens } : {}),
        ...(typeof usage?.completion_tokens === "number" ? { completionTokens: usage.completion_tokens } : {}),
        ...(typeof usage?.total_tokens === "number" ? { totalTokens: usage.total_tokens } : {}),
        ...(typeof cost === "number" ? { costUsd: cost } : {}),
      };
    }
    if (typeof response?.created === "number") step.startedAt = response.created;
    if (typeof extra?.timestamp === "number") step.endedAt = extra.timestamp;
    return step;
  }

  flush(): void {
    if (!this.current) return;
    const step = this.current;
    this.current = undefined;
    for (const call of step.toolCalls) delete call.id;
    this.sink(step);
    this.index += 1;
  }
}

function generation(
  trajectoryFormat: string | undefined,
  miniVersion: string | undefined,
  sawToolRole: boolean,
): TrajectoryFormat {
  if (trajectoryFormat === "mini-swe-agent-1") return "mini-swe-agent-1";
  // 2.x writes "mini-swe-agent-1.1" (and may bump the minor number).
  if (trajectoryFormat?.startsWith("mini-swe-agent-1.")) return "mini-swe-agent-2";
  if (trajectoryFormat !== undefined)
    throw new Error(
      `trajectory_format ${JSON.stringify(trajectoryFormat)} is not one this reader knows ("mini-swe-agent-1", "mini-swe-agent-1.x")`,
    );
  const major = miniVersion ? Number.parseInt(miniVersion, 10) : Number.NaN;
  if (major >= 2) return "mini-swe-agent-2";
  if (major === 1) return "mini-swe-agent-1";
  return sawToolRole ? "mini-swe-agent-2" : "mini-swe-agent-1";
}

/**
 * Reads one mini-swe-agent trajectory (`<instance_id>.traj.json`, 1.x "mini-swe-agent-1" or
 * 2.x "mini-swe-agent-1.1"), handing each step to `sink` and returning the rest. Large files
 * are streamed (see visitJsonDocument).
 *
 * Read: `info.exit_status`, `info.submission` (the patch), `info.model_stats.{api_calls,
 * instance_cost}`, `info.config.agent.{step_limit, cost_limit}` (0 = no limit, left out),
 * `info.config.model.model_name`; per output `extra.response.choices[0].finish_reason`,
 * `extra.response.usage`, `extra.cost`, `extra.response.created` (start) and `extra.timestamp`
 * (end, 2.x); per observation `extra.returncode` and `extra.timestamp` (2.x). The generation
 * is `trajectory_format`, else `info.mini_version`, else whether `tool` messages occur.
 *
 * Errors: not JSON, a message or `info` of the wrong shape (named by its index and field).
 */
export async function readMiniSweAgentTrajectory(
  file: string,
  sink: StepSink,
  options: TrajectoryReadOptions = {},
): Promise<TrajectoryHeader> {
  const builder = new MiniStepBuilder(sink);
  let info: z.infer<typeof MiniSweAgentInfoSchema> | undefined;
  let trajectoryFormat: string | undefined;
  let instanceId: string | undefined;
  let messageIndex = 0;
  await visitJsonDocument(
    file,
    {
      element: (container, value) => {
        if (container !== "messages") return;
        const parsed = MiniSweAgentMessageSchema.safeParse(value);
        if (!parsed.success) throw new Error(`messages[${messageIndex}]: ${formatZodError(parsed.error)}`);
        messageIndex += 1;
        builder.message(parsed.data);
      },
      member: (key, value) => {
        if (key === "info") {
          const parsed = MiniSweAgentInfoSchema.safeParse(value);
          if (!parsed.success) throw new Error(`info: ${formatZodError(parsed.error)}`);
          info = parsed.data;
        } else if (key === "trajectory_format" && typeof value === "string") {
          trajectoryFormat = value;
        } else if (key === "instance_id" && typeof value === "string") {
          instanceId = value;
        }
      },
    },
    {
      streamedArrays: ["messages"],
      members: ["info", "trajectory_format", "instance_id"],
      ...(options.maxWholeFileBytes === undefined ? {} : { maxWholeFileBytes: options.maxWholeFileBytes }),
    },
  );
  builder.flush();
  if (messageIndex === 0 && !info) throw new Error("neither messages nor info: not a mini-swe-agent trajectory");
  // Every mini-swe-agent run starts its conversation with a system and a user message.
  if (messageIndex === 0)
    throw new Error("no messages: the conversation (messages[]) is missing, empty or not an array");
  const stats = info?.model_stats ?? undefined;
  const agent = info?.config?.agent ?? undefined;
  const patch = info?.submission ?? builder.exit.submission ?? null;
  const header: TrajectoryHeader = {
    format: generation(trajectoryFormat, info?.mini_version ?? undefined, builder.sawToolRole),
    instanceId:
      instanceId ??
      basename(file)
        .replace(/\.traj\.json$/, "")
        .replace(/\.json$/, ""),
    source: file,
    outcome: { exitStatus: info?.exit_status ?? builder.exit.status ?? null, patch },
  };
  if (stats) {
    header.usage = {
      ...(typeof stats.api_calls === "number" ? { apiCalls: stats.api_calls } : {}),
      ...(typeof stats.instance_cost === "number" ? { costUsd: stats.instance_cost } : {}),
    };
  }
  const limits = {
    ...(typeof agent?.step_limit === "number" && agent.step_limit > 0 ? { steps: agent.step_limit } : {}),
    ...(typeof agent?.cost_limit === "number" && agent.cost_limit > 0 ? { costUsd: agent.cost_limit } : {}),
  };
  if (Object.keys(limits).length > 0) header.limits = limits;
  const model = info?.config?.model?.model_name;
  if (model) header.model = model;
  return header;
}
