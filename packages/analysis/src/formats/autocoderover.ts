import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { formatZodError } from "@loclab/schemas";
import { z } from "zod";
import type { StepSink, TrajectoryHeader } from "../model/trajectory.js";

const number = z.number().nullish();

/** tool_call_sequence.json: the search API calls, in order. */
export const AcrToolCallSequenceSchema = z.array(
  z.looseObject({
    func_name: z.string(),
    arguments: z.record(z.string(), z.unknown()).nullish(),
    call_ok: z.boolean().nullish(),
  }),
);
/** cost.json: tokens, money and wall clock of the task. */
export const AcrCostSchema = z.looseObject({
  model: z.string().nullish(),
  total_input_tokens: number,
  total_output_tokens: number,
  total_tokens: number,
  total_cost: number,
  start_epoch: number,
  end_epoch: number,
});
/** extract_status.json: one patch-extraction status per patch-writing attempt. */
export const AcrExtractStatusSchema = z.looseObject({ extract_status: z.array(z.string()) });
/** conversation_round_N.json: the whole (cumulative) message thread after round N. */
export const AcrConversationSchema = z.array(z.looseObject({ role: z.string(), content: z.string().nullish() }));

/** The largest single AutoCodeRover file read (they are small; a huge one is not this format). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** An instance folder is `<instance_id>_<YYYY-MM-DD_HH-MM-SS>`. */
const FOLDER_TIME = /_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}$/;

// Synchronous reads: an instance is four or five small files, and each awaited stat and read
// was a round trip through the thread pool that left the process idle (a 1 MB run took 90 ms).
function readJson<T>(folder: string, name: string, schema: z.ZodType<T>): T | undefined {
  const path = join(folder, name);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return undefined;
  }
  if (size > MAX_FILE_BYTES) throw new Error(`${name}: ${size} bytes, more than an AutoCodeRover file can be`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${name}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`${name}: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

const RESULT_HEADER = /^Result of (\w+)\(/gm;

/** The `Result of <api>(…):` blocks of the thread's user messages, in order, each up to the next block or the message's end. */
function searchResultBlocks(
  thread: ReadonlyArray<{ role: string; content?: string | null }>,
): Array<{ api: string; text: string }> {
  const blocks: Array<{ api: string; text: string }> = [];
  for (const message of thread) {
    if (message.role !== "user" || !message.content) continue;
    const starts = [...message.content.matchAll(RESULT_HEADER)];
    starts.forEach((match, i) => {
      const end = i + 1 < starts.length ? starts[i + 1]!.index : message.content!.length;
      blocks.push({ api: match[1] as string, text: message.content!.slice(match.index, end).trimEnd() });
    });
  }
  return blocks;
}

/** The instance id of an AutoCodeRover instance folder: its name without the timestamp. */
export function autoCodeRoverInstanceId(folder: string): string {
  return basename(folder).replace(FOLDER_TIME, "");
}

/**
 * Reads one AutoCodeRover instance folder (acr-run-1 layout:
 * `<category>/<instance_id>_<timestamp>/`).
 *
 * Steps: the assistant messages of the last `conversation_round_N.json` (the thread is
 * cumulative) as outputs without calls, then one step per `tool_call_sequence.json` entry
 * (`call_ok: false` → `ok: false`). ACR's logs do not say which output issued which search, so
 * the two are not interleaved. A call's observation is its `Result of <api>(…):` block from the
 * thread's user messages (ACR puts one or several such blocks in one message, in call order):
 * the k-th call of an API gets the next unclaimed block of that API; a call without one (the
 * thread was cut, or ACR did not echo it) has no observation. Outcome: exit status = the folder's category (applicable_patch,
 * raw_patch_but_unmatched, …, the patch-extraction result), patch = the highest-numbered
 * `extracted_patch_N.diff` (none → no patch). Totals and wall clock from cost.json; `rounds`
 * = N of the last conversation round (the context-retrieval rounds, plus one when the loop
 * ran out and ACR wrote the patch anyway).
 *
 * Errors: a folder with neither tool_call_sequence.json nor any conversation round; a file
 * of the wrong shape (named).
 */
export async function readAutoCodeRoverTrajectory(folder: string, sink: StepSink): Promise<TrajectoryHeader> {
  const names = readdirSync(folder);
  const roundOf = (name: string, pattern: RegExp): number => Number(pattern.exec(name)?.[1] ?? Number.NaN);
  const rounds = names.map((name) => roundOf(name, /^conversation_round_(\d+)\.json$/)).filter(Number.isFinite);
  const patches = names.map((name) => roundOf(name, /^extracted_patch_(\d+)\.diff$/)).filter(Number.isFinite);
  const lastRound = rounds.length > 0 ? Math.max(...rounds) : undefined;
  const calls = readJson(folder, "tool_call_sequence.json", AcrToolCallSequenceSchema);
  const conversation =
    lastRound === undefined
      ? undefined
      : readJson(folder, `conversation_round_${lastRound}.json`, AcrConversationSchema);
  if (!calls && !conversation)
    throw new Error(
      "neither tool_call_sequence.json nor conversation_round_N.json: not an AutoCodeRover instance folder",
    );
  const cost = readJson(folder, "cost.json", AcrCostSchema);
  const extract = readJson(folder, "extract_status.json", AcrExtractStatusSchema);
  let index = 0;
  for (const message of conversation ?? []) {
    if (message.role !== "assistant") continue;
    sink({ index, output: message.content ?? "", toolCalls: [] });
    index += 1;
  }
  const results = searchResultBlocks(conversation ?? []);
  let cursor = 0;
  for (const call of calls ?? []) {
    let observation: string | undefined;
    for (let k = cursor; k < results.length; k++) {
      if (results[k]!.api !== call.func_name) continue;
      observation = results[k]!.text;
      cursor = k + 1;
      break;
    }
    sink({
      index,
      toolCalls: [
        {
          name: call.func_name,
          arguments: call.arguments ?? {},
          ...(typeof call.call_ok === "boolean" ? { ok: call.call_ok } : {}),
          ...(observation !== undefined ? { observation } : {}),
        },
      ],
    });
    index += 1;
  }
  const patchNumber = patches.length > 0 ? Math.max(...patches) : undefined;
  const patch =
    patchNumber === undefined ? null : readFileSync(join(folder, `extracted_patch_${patchNumber}.diff`), "utf8");
  const category = basename(dirname(folder));
  const header: TrajectoryHeader = {
    format: "autocoderover",
    instanceId: autoCodeRoverInstanceId(folder),
    source: folder,
    outcome: { exitStatus: category || (extract?.extract_status.at(-1) ?? null), patch },
  };
  if (lastRound !== undefined) header.rounds = lastRound;
  if (cost) {
    header.usage = {
      ...(typeof cost.total_input_tokens === "number" ? { promptTokens: cost.total_input_tokens } : {}),
      ...(typeof cost.total_output_tokens === "number" ? { completionTokens: cost.total_output_tokens } : {}),
      ...(typeof cost.total_tokens === "number" ? { totalTokens: cost.total_tokens } : {}),
      ...(typeof cost.total_cost === "number" ? { costUsd: cost.total_cost } : {}),
    };
    if (typeof cost.start_epoch === "number") header.startedAt = cost.start_epoch;
    if (typeof cost.end_epoch === "number") header.endedAt = cost.end_epoch;
    if (cost.model) header.model = cost.model;
  }
  return header;
}
