import { basename } from "node:path";
import { formatZodError } from "@loclab/schemas";
import { z } from "zod";
import type { StepSink, RecordedToolCall, TrajectoryHeader, TrajectoryStep } from "../model/trajectory.js";
import { visitJsonDocument } from "../read/visit-json-document.js";
import type { TrajectoryReadOptions } from "./read-options.js";

const text = z.string().nullish();
const number = z.number().nullish();

/** One element of `trajectory[]` in a SWE-agent 0.x .traj file (only what is read). */
export const SweAgentStepSchema = z.looseObject({ action: text, observation: text, response: text, thought: text });

/** `info` of a SWE-agent 0.x .traj file. */
export const SweAgentInfoSchema = z.looseObject({
  exit_status: text,
  submission: text,
  model_stats: z
    .looseObject({ api_calls: number, instance_cost: number, tokens_sent: number, tokens_received: number })
    .nullish(),
});

/**
 * SWE-agent 0.x's ACI commands (default config and its variants). A first word not in this
 * list is a shell command run as is, named "bash".
 */
export const SWE_AGENT_COMMANDS: ReadonlySet<string> = new Set([
  "open",
  "goto",
  "scroll_down",
  "scroll_up",
  "create",
  "edit",
  "search_dir",
  "search_file",
  "find_file",
  "submit",
  "filemap",
  "str_replace_editor",
]);

/** Maps one SWE-agent action to a tool call; `exit_*` pseudo-actions are the harness's, not the model's. */
function actionCall(action: string): RecordedToolCall | { harness: string } | undefined {
  const command = action.trim();
  if (command === "") return undefined;
  const first = command.split(/\s+/, 1)[0] as string;
  if (/^exit_\w+$/.test(first)) return { harness: first };
  return { name: SWE_AGENT_COMMANDS.has(first) ? first : "bash", arguments: { command } };
}

/**
 * Reads one SWE-agent 0.x trajectory (`<instance_id>.traj`): each `trajectory[]` element is a
 * step whose output is `response` (else `thought`) and whose single tool call is `action` with
 * `observation`. The `exit_cost` / `exit_context` / … actions SWE-agent appends when it stops a
 * run are kept as harness steps (`error`), not calls. `history[]` repeats the same exchange as
 * chat messages and is skipped. Totals from `info.model_stats` (api_calls, instance_cost,
 * tokens_sent, tokens_received); no timestamps and no finish_reason exist in this format.
 * The instance id is the file name.
 */
export async function readSweAgentTrajectory(
  file: string,
  sink: StepSink,
  options: TrajectoryReadOptions = {},
): Promise<TrajectoryHeader> {
  let info: z.infer<typeof SweAgentInfoSchema> | undefined;
  let index = 0;
  let sawTrajectory = false;
  await visitJsonDocument(
    file,
    {
      element: (container, value) => {
        if (container !== "trajectory") return; // history[] duplicates it
        sawTrajectory = true;
        const parsed = SweAgentStepSchema.safeParse(value);
        if (!parsed.success) throw new Error(`trajectory[${index}]: ${formatZodError(parsed.error)}`);
        const { action, observation, response, thought } = parsed.data;
        const step: TrajectoryStep = { index, toolCalls: [] };
        const output = response ?? thought ?? undefined;
        if (output !== undefined) step.output = output;
        const call = actionCall(action ?? "");
        if (call && "harness" in call) {
          step.error = observation ? `${call.harness}: ${observation}` : call.harness;
        } else if (call) {
          if (typeof observation === "string") call.observation = observation;
          step.toolCalls.push(call);
        }
        index += 1;
        sink(step);
      },
      member: (key, value) => {
        if (key !== "info") return;
        const parsed = SweAgentInfoSchema.safeParse(value);
        if (!parsed.success) throw new Error(`info: ${formatZodError(parsed.error)}`);
        info = parsed.data;
      },
    },
    {
      streamedArrays: ["trajectory", "history"],
      members: ["info"],
      ...(options.maxWholeFileBytes === undefined ? {} : { maxWholeFileBytes: options.maxWholeFileBytes }),
    },
  );
  if (!sawTrajectory && !info) throw new Error("neither trajectory[] steps nor info: not a SWE-agent .traj file");
  const stats = info?.model_stats ?? undefined;
  const header: TrajectoryHeader = {
    format: "swe-agent",
    instanceId: basename(file).replace(/\.traj$/, ""),
    source: file,
    outcome: { exitStatus: info?.exit_status ?? null, patch: info?.submission ?? null },
  };
  if (stats) {
    header.usage = {
      ...(typeof stats.api_calls === "number" ? { apiCalls: stats.api_calls } : {}),
      ...(typeof stats.instance_cost === "number" ? { costUsd: stats.instance_cost } : {}),
      ...(typeof stats.tokens_sent === "number" ? { promptTokens: stats.tokens_sent } : {}),
      ...(typeof stats.tokens_received === "number" ? { completionTokens: stats.tokens_received } : {}),
    };
  }
  return header;
}
