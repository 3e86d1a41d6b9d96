import { forEachLineSync } from "../read/read-lines.js";
import {
  formatTrajectoryLine,
  formatZodError,
  type Provenance,
  SCHEMA_VERSION,
  TRAJECTORY_EXITS,
  TRAJECTORY_KIND,
  type TrajectoryExit,
  type TrajectoryHeaderLine,
  TrajectoryHeaderSchema,
  type TrajectoryStepLine,
  TrajectoryStepSchema,
} from "@loclab/schemas";
import type { RunLimits, StepSink, Trajectory, TrajectoryHeader, TrajectoryStep } from "../model/trajectory.js";

const seconds = (iso: string): number => Date.parse(iso) / 1000;
const iso = (epochSeconds: number): string => new Date(epochSeconds * 1000).toISOString();

/**
 * Serializes a trajectory as a loclab trajectory file (JSONL; see README "loclab trajectory
 * format"): the header line, then one line per step. Times go out as ISO 8601 (UTC). The exit
 * is the trajectory's `outcome.exitStatus`, which must be one of TRAJECTORY_EXITS (@loclab/schemas). Extra header
 * fields (provenance) come from `header`.
 *
 * Errors: an exit status that is not a loclab exit; a line that does not pass its schema.
 */
export function formatLoclabTrajectory(trajectory: Trajectory, header: { provenance?: Provenance } = {}): string {
  const exit = trajectory.outcome.exitStatus;
  if (!TRAJECTORY_EXITS.includes(exit as TrajectoryExit))
    throw new Error(
      `formatLoclabTrajectory requires a loclab exit (${TRAJECTORY_EXITS.join(", ")}), got ${JSON.stringify(exit)}`,
    );
  const head: TrajectoryHeaderLine = {
    kind: TRAJECTORY_KIND,
    schemaVersion: SCHEMA_VERSION,
    instanceId: trajectory.instanceId,
    outcome: { exit: exit as TrajectoryExit, patch: trajectory.outcome.patch },
    model: trajectory.model,
    limits: trajectory.limits,
    usage: trajectory.usage,
    startedAt: trajectory.startedAt === undefined ? undefined : iso(trajectory.startedAt),
    endedAt: trajectory.endedAt === undefined ? undefined : iso(trajectory.endedAt),
    provenance: header.provenance,
  };
  const lines = [formatTrajectoryLine("header", head)];
  trajectory.steps.forEach((step, index) => {
    const line: TrajectoryStepLine = {
      step: index,
      output: step.output,
      finishReason: step.finishReason,
      usage: step.usage,
      toolCalls: step.toolCalls.map((call) => ({
        name: call.name,
        arguments: call.arguments,
        observation: call.observation,
        ok: call.ok,
        returnCode: call.returnCode,
        observedAt: call.observedAt === undefined ? undefined : iso(call.observedAt),
      })),
      startedAt: step.startedAt === undefined ? undefined : iso(step.startedAt),
      endedAt: step.endedAt === undefined ? undefined : iso(step.endedAt),
      error: step.error,
    };
    lines.push(formatTrajectoryLine("step", line, `step ${index}`));
  });
  return `${lines.join("\n")}\n`;
}

function toStep(line: TrajectoryStepLine): TrajectoryStep {
  const step: TrajectoryStep = {
    index: line.step,
    toolCalls: line.toolCalls.map((call) => ({
      name: call.name,
      arguments: call.arguments,
      ...(call.observation === undefined ? {} : { observation: call.observation }),
      ...(call.ok === undefined ? {} : { ok: call.ok }),
      ...(call.returnCode === undefined ? {} : { returnCode: call.returnCode }),
      ...(call.observedAt === undefined ? {} : { observedAt: seconds(call.observedAt) }),
    })),
  };
  if (line.output !== undefined) step.output = line.output;
  if (line.finishReason !== undefined) step.finishReason = line.finishReason;
  if (line.usage !== undefined) step.usage = line.usage;
  if (line.startedAt !== undefined) step.startedAt = seconds(line.startedAt);
  if (line.endedAt !== undefined) step.endedAt = seconds(line.endedAt);
  if (line.error !== undefined) step.error = line.error;
  return step;
}

/**
 * Reads a loclab trajectory file (`<instance_id>.traj.jsonl`) line by line (memory stays flat
 * whatever the number of steps), validating the header line and every step line.
 *
 * Errors name the line: not JSON, a header or step that does not match its schema (including
 * another schemaVersion), a step number out of sequence, an empty file.
 */
export async function readLoclabTrajectory(file: string, sink: StepSink): Promise<TrajectoryHeader> {
  let header: TrajectoryHeaderLine | undefined;
  let expected = 0;
  forEachLineSync(file, (raw, lineNumber) => {
    const text = lineNumber === 1 ? raw.replace(/^\uFEFF/, "") : raw;
    if (text.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`line ${lineNumber}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!header) {
      const parsed = TrajectoryHeaderSchema.safeParse(json);
      if (!parsed.success)
        throw new Error(`line ${lineNumber}: not a loclab trajectory header: ${formatZodError(parsed.error)}`);
      header = parsed.data;
      return;
    }
    const parsed = TrajectoryStepSchema.safeParse(json);
    if (!parsed.success) throw new Error(`line ${lineNumber}: ${formatZodError(parsed.error)}`);
    if (parsed.data.step !== expected)
      throw new Error(`line ${lineNumber}: step ${parsed.data.step} out of sequence (expected ${expected})`);
    expected += 1;
    sink(toStep(parsed.data));
  });
  if (!header) throw new Error("empty file: no header line");
  const result: TrajectoryHeader = {
    format: "loclab",
    instanceId: header.instanceId,
    source: file,
    outcome: { exitStatus: header.outcome.exit, patch: header.outcome.patch },
  };
  if (header.usage) result.usage = header.usage;
  if (header.limits) result.limits = header.limits as RunLimits;
  if (header.model) result.model = header.model;
  if (header.startedAt) result.startedAt = seconds(header.startedAt);
  if (header.endedAt) result.endedAt = seconds(header.endedAt);
  return result;
}
