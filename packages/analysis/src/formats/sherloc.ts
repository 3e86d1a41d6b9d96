import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SherlocOutputRowSchema, type SherlocTurn, formatZodError } from "@loclab/schemas";
import type { RecordedToolCall, StepSink, TrajectoryHeader, TrajectoryStep } from "../model/trajectory.js";

/**
 * SHERLOC writes a whole run into one generation JSONL, one instance per line, so a SHERLOC
 * "trajectory file" is a line of such a file. It is named `FILE#<first byte>-<end byte>`:
 * plain data a reader thread can take, and read without touching the rest of the file.
 */
const LINE_REF = /^(.*)#(\d+)-(\d+)$/;

/** One line of a SHERLOC generation file, as a run's trajectory entry (`TrajectoryEntry`'s shape). */
export interface SherlocLine {
  /** `FILE#<first byte>-<end byte>`. */
  path: string;
  /** The id the line names (the reader takes the parsed row's). */
  instanceId: string;
  bytes: number;
}

/** The instance id of a line, for listing only (the reader takes the parsed row's). */
const INSTANCE_ID = /"instance_id"\s*:\s*"((?:[^"\\]|\\.)*)"/;

/**
 * The lines of SHERLOC generation files as trajectory entries: `path` is one `.jsonl` file
 * or a folder whose `.jsonl` files (up to 4 levels down) are read; blank and `null` lines
 * (SHERLOC's evaluator keeps a failed line as `null`) are passed over.
 */
export function listSherlocLines(path: string): SherlocLine[] {
  const files: string[] = [];
  const walk = (folder: string, depth: number): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      const child = join(folder, entry.name);
      if (entry.isDirectory() && depth < 4) walk(child, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(".jsonl")) files.push(child);
    }
  };
  if (statSync(path).isDirectory()) walk(path, 0);
  else files.push(path);
  const entries: SherlocLine[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    let start = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(0x0a, start);
      if (end < 0) end = bytes.length;
      const text = bytes.toString("utf8", start, end).trim();
      if (text !== "" && text !== "null") {
        const id = INSTANCE_ID.exec(text)?.[1];
        entries.push({
          path: `${file}#${start}-${end}`,
          instanceId: id ? (JSON.parse(`"${id}"`) as string) : `${file}#${start}`,
          bytes: end - start,
        });
      }
      start = end + 1;
    }
  }
  return entries;
}

function readRange(file: string, start: number, end: number): string {
  const buffer = Buffer.allocUnsafe(end - start);
  const fd = openSync(file, "r");
  try {
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads one line of a SHERLOC generation file (`FILE#<start>-<end>`, see listSherlocLines)
 * as a trajectory: one step per turn in which the model answered, with its text, its
 * generated tokens (`_llm_tokens`) and its tool call (`tool_call`, the tool named by its
 * `tool` key, the rest its arguments, `tool_output` the observation); the answer that hands
 * in `<locations>` is a `submit` call holding them. A turn SHERLOC injected (`turn_type`: a
 * loop intervention, a length warning, the final-turn instruction) is recorded as the next
 * step's `error` note. The outcome is SHERLOC's `status`, with its `reason` in parentheses;
 * the totals are `total_generated_tokens` and `num_turns`. No patch: SHERLOC localizes.
 *
 * Errors name the line's bytes: not JSON, not a SHERLOC row.
 */
export async function readSherlocTrajectory(path: string, sink: StepSink): Promise<TrajectoryHeader> {
  const ref = LINE_REF.exec(path);
  if (!ref) throw new Error(`${path}: not a SHERLOC line reference (FILE#<start>-<end>, from listSherlocLines)`);
  const [, file, from, to] = ref as unknown as [string, string, string, string];
  const text = readRange(file, Number(from), Number(to));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = SherlocOutputRowSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${path}: not a SHERLOC output line: ${formatZodError(parsed.error)}`);
  const row = parsed.data;
  let index = 0;
  let note: string | undefined;
  for (const turn of row.turns ?? []) {
    if (turn.turn_type !== undefined && !turn.assistant) {
      note = note === undefined ? turn.turn_type : `${note}; ${turn.turn_type}`;
      continue;
    }
    if (!turn.assistant) continue;
    const step: TrajectoryStep = { index, output: turn.assistant, toolCalls: toolCallsOf(turn) };
    if (turn._llm_tokens !== undefined) step.usage = { completionTokens: turn._llm_tokens };
    const injected = turn.turn_type ?? note;
    if (injected !== undefined) step.error = `SHERLOC injected: ${injected}`;
    note = undefined;
    sink(step);
    index += 1;
  }
  const header: TrajectoryHeader = {
    format: "sherloc",
    instanceId: row.instance_id,
    source: path,
    outcome: { exitStatus: row.reason ? `${row.status} (${row.reason})` : row.status, patch: null },
  };
  if (row.total_generated_tokens !== undefined || row.num_turns !== undefined) {
    header.usage = {
      ...(row.total_generated_tokens !== undefined ? { completionTokens: row.total_generated_tokens } : {}),
      ...(row.num_turns !== undefined ? { apiCalls: row.num_turns } : {}),
    };
  }
  return header;
}

function toolCallsOf(turn: SherlocTurn): RecordedToolCall[] {
  const calls: RecordedToolCall[] = [];
  const call = turn.tool_call;
  if (call) {
    const { tool, ...rest } = call;
    calls.push({
      name: typeof tool === "string" ? tool : "unknown",
      arguments: rest,
      ...(turn.tool_output !== undefined ? { observation: turn.tool_output } : {}),
    });
  }
  if (!call && turn.locations) calls.push({ name: "submit", arguments: { locations: turn.locations } });
  return calls;
}
