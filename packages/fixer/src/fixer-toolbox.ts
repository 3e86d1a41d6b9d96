import { budgetNote, isCounted } from "./call-budget.js";
import { cutOutput } from "./cut-output.js";
import { replaceExact } from "./exact-edit.js";
import type { FixerLimits } from "./fixer-limits.js";
import { FIXER_TOOL_SCHEMAS, FIXER_TOOLS, type FixerTool, SINGLE_AGENT_TOOLS } from "./fixer-tool-schemas.js";
import type { LocalizerCall, LocalizerRunner } from "./localizer-tool.js";
import { checkedStart, ReadWindowError, readWindow, type ReadWindow, windowBytes } from "./read-window.js";
import {
  DEFAULT_PATCH_LIMITS,
  diskLimitNote,
  leftoverNote,
  limitNotes,
  type PatchLimits,
  patchOverLimitNote,
} from "./sandbox-limits.js";
import { type Sandbox, SandboxFileError } from "./sandbox.js";
import type { z } from "zod";

/** Why a tool call did not do what it asked: the model's mistake, answered in the tool result, never an exception. */
export type FixerToolError =
  | "unknown-tool"
  | "bad-arguments"
  | "budget-exhausted"
  | "no-such-file"
  | "not-a-file"
  | "binary-file"
  | "file-too-large"
  | "file-failed"
  | "read-range"
  | "edit-empty"
  | "edit-absent"
  | "edit-ambiguous"
  | "edit-unchanged";

/** One tool call's result: what the model sees, and what the trajectory and the failure analysis read. */
export interface FixerToolResult {
  tool: string;
  /** The tool message the model gets (a budget note appended when few counted calls remain). */
  content: string;
  /** Whether the call counted against the budget. */
  counted: boolean;
  error?: FixerToolError;
  /** run_command: how the command ended. */
  command?: {
    exitCode: number | null;
    timedOut: boolean;
    cancelled: boolean;
    ms: number;
    stdoutOmitted: number;
    stderrOmitted: number;
    /** Bytes past the sandbox's keep cap, counted and dropped (a flood). */
    stdoutDroppedBytes?: number;
    stderrDroppedBytes?: number;
    /** Processes of the command the kernel's OOM killer ended (the memory limit). */
    memoryKills?: number;
    /** Forks refused at the process limit. */
    forksRefused?: number;
    /** Time the CPU quota held the container back over the command. */
    cpuThrottledMs?: number;
    /** Processes the command left running, ended after it. */
    leftoverProcesses?: number;
    /** The container's writable layer (bytes) when it passed the disk limit: the attempt ends (exit `disk_limit`). */
    diskBytes?: number;
  };
  /** read_file: the lines really returned. */
  read?: Omit<ReadWindow, "text"> & { path: string };
  /** submit_patch: the patch submitted (the current diff). */
  patch?: string;
  /** submit_patch: the diff was over the patch limits (then `patch` is empty). */
  patchOverLimit?: PatchOverLimit;
  /** Counted calls this call cost: 1 for a counted tool, the localizer's model turns for `localizer`. */
  charged?: number;
  /** localizer: the sub-agent's call (its trajectory, turns, tokens, locations). */
  localizer?: Omit<LocalizerCall, "content">;
}

/** A final diff over the patch limits: its size (null when not taken), the oversized binary files, the note. */
export interface PatchOverLimit {
  bytes: number | null;
  oversized: { path: string; bytes: number }[];
  note: string;
}

export interface FixerToolboxOptions {
  /** The final patch's limits; default DEFAULT_PATCH_LIMITS. */
  patchLimits?: PatchLimits;
  /** The two-agent fixer's `localizer` tool; without it the tool is unknown (single agent). */
  localizer?: LocalizerRunner;
  /** The task, which the localizer is given. */
  instance?: { instance_id: string; problem_statement: string };
}

/**
 * FGL's fixer tools over a sandbox, with the run's caps and the call budget. A call's problems
 * (an unknown tool, arguments that fail the schema, a missing file, an edit whose old text is
 * absent or ambiguous) are answers to the model with a named `error`, so the loop goes on; only
 * the sandbox's own failures (the container gone) are thrown. Calls of run_command, read_file,
 * edit_file and write_file are counted, malformed ones included (each took a turn of the
 * budget, as in FGL's harness); once the budget is spent, a counted call is refused without
 * running (`budget-exhausted`) and the loop ends the attempt.
 */
export class FixerToolbox {
  private used = 0;

  constructor(
    readonly sandbox: Sandbox,
    readonly limits: FixerLimits,
    readonly options: FixerToolboxOptions = {},
  ) {}

  get patchLimits(): PatchLimits {
    return this.options.patchLimits ?? DEFAULT_PATCH_LIMITS;
  }

  /** The tools this toolbox answers: the single agent's six, and `localizer` when it has one. */
  get tools(): readonly FixerTool[] {
    return this.options.localizer ? FIXER_TOOLS : SINGLE_AGENT_TOOLS;
  }

  /** Counted calls made so far. */
  get callsUsed(): number {
    return this.used;
  }

  get callsLeft(): number {
    return Math.max(0, this.limits.callBudget - this.used);
  }

  /**
   * Runs one call. `rawArguments` is the JSON the model wrote; `signal` is the supervisor's
   * (the wall budget): it kills a running command's process group.
   */
  async call(
    tool: string,
    rawArguments: string,
    options: {
      signal?: AbortSignal;
      /** Epoch ms when the attempt's time runs out (the localizer stops then). */
      deadline?: number;
    } = {},
  ): Promise<FixerToolResult> {
    if (!(this.tools as string[]).includes(tool))
      return {
        tool,
        counted: false,
        error: "unknown-tool",
        content: `Unknown tool "${tool}". The tools are: ${this.tools.join(", ")}.`,
      };
    if (tool === "localizer") return this.callLocalizer(rawArguments, options.deadline);
    const counted = isCounted(tool);
    if (counted && this.callsLeft === 0) return this.budgetExhausted(tool);
    if (counted) this.used += 1;
    const result = await this.dispatch(tool as Exclude<FixerTool, "localizer">, rawArguments, options.signal);
    const note = counted ? budgetNote(this.callsLeft, this.limits) : undefined;
    return {
      ...result,
      tool,
      counted,
      ...(counted ? { charged: 1 } : {}),
      ...(note ? { content: `${result.content}\n\n${note}` } : {}),
    };
  }

  /**
   * The two-agent fixer's localizer: a fresh session on the task, given at most the calls the
   * shared budget has left (and its own limit); its model turns are charged to the budget.
   */
  private async callLocalizer(rawArguments: string, deadline: number | undefined): Promise<FixerToolResult> {
    if (this.callsLeft === 0) return this.budgetExhausted("localizer");
    const args = parseArguments("localizer", rawArguments);
    if (!args.ok) return { tool: "localizer", counted: false, error: "bad-arguments", content: args.message };
    if (!this.options.instance) throw new Error("the localizer tool needs the task (FixerToolbox options.instance)");
    const { content, ...call } = await this.options.localizer!({
      instance: this.options.instance,
      ...(args.value.focus ? { focus: args.value.focus } : {}),
      maxCalls: this.callsLeft,
      ...(deadline !== undefined ? { wallMs: deadline - Date.now() } : {}),
    });
    this.used += call.calls;
    const note = budgetNote(this.callsLeft, this.limits);
    return {
      tool: "localizer",
      counted: true,
      charged: call.calls,
      localizer: call,
      content: note ? `${content}\n\n${note}` : content,
    };
  }

  /** A counted call asked for after the budget was spent: refused, not run, and not counted. */
  private budgetExhausted(tool: string): FixerToolResult {
    return {
      tool,
      counted: false,
      error: "budget-exhausted",
      content: `No tool calls left (budget ${this.limits.callBudget}). The current diff is taken as your patch.`,
    };
  }

  private async dispatch(
    tool: Exclude<FixerTool, "localizer">,
    rawArguments: string,
    signal: AbortSignal | undefined,
  ): Promise<Omit<FixerToolResult, "tool" | "counted">> {
    const parsed = parseArguments(tool, rawArguments);
    if (!parsed.ok) return { error: "bad-arguments", content: parsed.message };
    const args = parsed.value as Record<string, unknown>;
    try {
      switch (tool) {
        case "run_command":
          return await this.runCommand(args.command as string, signal);
        case "read_file":
          return await this.readFile(args as { path: string; start_line?: number; end_line?: number });
        case "edit_file":
          return await this.editFile(args as { path: string; old_text: string; new_text: string });
        case "write_file": {
          const { path, content } = args as { path: string; content: string };
          await this.sandbox.writeFile(path, content);
          return { content: `Wrote ${path} (${lineCount(content)} lines).` };
        }
        case "get_status": {
          const diff = await this.sandbox.diff(this.patchLimits);
          if (!diff.complete)
            return {
              content: `Your changes cannot be submitted as they are: ${patchOverLimitNote(diff, this.patchLimits)}. Remove what should not be in the patch.`,
            };
          if (diff.patch === "") return { content: "No changes yet." };
          // As long as read_file's window at most: the whole diff is what submit_patch hands in.
          const shown = cutOutput(diff.patch, this.limits.readChars);
          return { content: shown.text };
        }
        case "submit_patch": {
          const diff = await this.sandbox.diff(this.patchLimits);
          if (!diff.complete) {
            const note = patchOverLimitNote(diff, this.patchLimits);
            return {
              patch: "",
              patchOverLimit: { bytes: diff.bytes, oversized: diff.oversized, note },
              content: `Submitted, but ${note}: the patch will not be evaluated.`,
            };
          }
          return {
            patch: diff.patch,
            content: diff.patch === "" ? "Submitted an empty patch (no changes)." : "Submitted.",
          };
        }
      }
    } catch (error) {
      if (error instanceof SandboxFileError) return fileError(error);
      throw error;
    }
  }

  private async runCommand(command: string, signal: AbortSignal | undefined) {
    const result = await this.sandbox.run(command, {
      timeoutMs: this.limits.commandTimeoutMs,
      ...(signal ? { signal } : {}),
    });
    const stdout = cutOutput(result.stdout, this.limits.outputChars, result.stdoutDroppedBytes);
    const stderr = cutOutput(result.stderr, this.limits.outputChars, result.stderrDroppedBytes);
    const status = result.timedOut
      ? `timed out after ${this.limits.commandTimeoutMs / 1000} s: the command and its children were killed`
      : result.cancelled
        ? "cancelled: the attempt's time is up"
        : `exit code ${result.exitCode}`;
    const hit = result.hit ?? { memory: 0, processes: 0, cpuThrottledUs: 0 };
    const notes = limitNotes(hit, this.sandbox.limits);
    const leftover = result.leftover ? leftoverNote(result.leftover.count, result.leftover.commands) : undefined;
    if (leftover) notes.push(leftover);
    if (result.diskOver) notes.push(diskLimitNote(result.diskOver.bytes, this.sandbox.limits));
    return {
      content: `${[status, ...notes].join("\n")}\nstdout:\n${stdout.text || "(empty)"}\nstderr:\n${stderr.text || "(empty)"}`,
      command: {
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        cancelled: result.cancelled,
        ms: result.ms,
        stdoutOmitted: stdout.omitted,
        stderrOmitted: stderr.omitted,
        ...(stdout.droppedBytes > 0 ? { stdoutDroppedBytes: stdout.droppedBytes } : {}),
        ...(stderr.droppedBytes > 0 ? { stderrDroppedBytes: stderr.droppedBytes } : {}),
        ...(hit.memory > 0 ? { memoryKills: hit.memory } : {}),
        ...(hit.processes > 0 ? { forksRefused: hit.processes } : {}),
        ...(hit.cpuThrottledUs > 0 ? { cpuThrottledMs: Math.round(hit.cpuThrottledUs / 1000) } : {}),
        ...(result.leftover ? { leftoverProcesses: result.leftover.count } : {}),
        ...(result.diskOver ? { diskBytes: result.diskOver.bytes } : {}),
      },
    };
  }

  private async readFile(args: { path: string; start_line?: number; end_line?: number }) {
    const request = {
      ...(args.start_line !== undefined ? { startLine: args.start_line } : {}),
      ...(args.end_line !== undefined ? { endLine: args.end_line } : {}),
    };
    const caps = { maxLines: this.limits.readLines, maxChars: this.limits.readChars };
    let window: ReadWindow;
    try {
      // Only the window leaves the container: its lines, cut at a byte count that cannot change it.
      const startLine = checkedStart(request);
      const lastLine = Math.min(request.endLine ?? Number.POSITIVE_INFINITY, startLine + caps.maxLines - 1);
      const slice = await this.sandbox.readLines(args.path, {
        startLine,
        lines: lastLine - startLine + 1,
        maxBytes: windowBytes(caps),
      });
      window = readWindow({ ...slice, firstLine: startLine }, request, caps);
    } catch (error) {
      if (error instanceof ReadWindowError)
        return { error: "read-range" as const, content: `${args.path}: ${error.message}` };
      throw error;
    }
    const { text: lines, ...range } = window;
    const next = range.endLine + 1;
    const more =
      range.cut === "lines"
        ? ` (at most ${this.limits.readLines} lines per read; continue with start_line=${next})`
        : range.cut === "chars"
          ? ` (at most ${this.limits.readChars} characters per read; continue with start_line=${next})`
          : range.cut === "line"
            ? ` (line ${range.startLine} alone is longer than ${this.limits.readChars} characters: its first ${this.limits.readChars} are shown)`
            : "";
    const header =
      range.totalLines === 0
        ? `${args.path}: the file is empty`
        : `${args.path}: lines ${range.startLine}-${range.endLine} of ${range.totalLines}${more}`;
    return { content: `${header}\n${lines}`, read: { path: args.path, ...range } };
  }

  private async editFile(args: { path: string; old_text: string; new_text: string }) {
    const before = await this.sandbox.readFile(args.path);
    const edit = replaceExact(before, args.old_text, args.new_text);
    if (!edit.ok) return { error: `edit-${edit.reason}` as const, content: `${args.path}: ${edit.message}` };
    await this.sandbox.writeFile(args.path, edit.content);
    return {
      content: `Edited ${args.path} at line ${edit.line}: ${lineCount(args.old_text)} line(s) replaced by ${lineCount(args.new_text)}.`,
    };
  }
}

/** A call's JSON arguments checked by its tool's schema, or the message that tells the model what is wrong. */
function parseArguments<Tool extends FixerTool>(
  tool: Tool,
  raw: string,
): { ok: true; value: z.output<(typeof FIXER_TOOL_SCHEMAS)[Tool]> } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = raw.trim() === "" ? {} : JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      message: `The arguments of ${tool} are not JSON (${(error as Error).message}): ${raw.slice(0, 200)}`,
    };
  }
  const parsed = FIXER_TOOL_SCHEMAS[tool].safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data as z.output<(typeof FIXER_TOOL_SCHEMAS)[Tool]> };
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`);
  return { ok: false, message: `Bad arguments for ${tool}: ${problems.join("; ")}` };
}

function fileError(error: SandboxFileError): Omit<FixerToolResult, "tool" | "counted"> {
  const kind: FixerToolError =
    error.reason === "missing"
      ? "no-such-file"
      : error.reason === "directory"
        ? "not-a-file"
        : error.reason === "binary"
          ? "binary-file"
          : error.reason === "too-large"
            ? "file-too-large"
            : "file-failed";
  return { error: kind, content: error.message };
}

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
