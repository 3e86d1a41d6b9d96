import { appendFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  formatTrajectoryLine,
  type Provenance,
  SCHEMA_VERSION,
  TRAJECTORY_KIND,
  type TrajectoryExit,
  type TrajectoryLimits,
  type TrajectoryTotals,
  type TrajectoryStepLine,
  writeFileAtomic,
} from "@loclab/schemas";

export type { TrajectoryExit } from "@loclab/schemas";

/** A run's totals, as the header records them at the end (the schema's `TrajectoryTotals`). */
export type TrajectoryUsage = TrajectoryTotals;

/** Header fields (line 1 of `<instance_id>.traj.jsonl`). Times are ISO 8601. */
export interface TrajectoryHeader {
  instanceId: string;
  model: string;
  limits: TrajectoryLimits;
  startedAt: string;
  /** How the run was made (tool, version, git revision, model config, seed); never the API key. */
  provenance?: Provenance;
  /** How the answers were decoded (`free` or `constrained` tool calls). */
  decoding?: { toolCalls: "free" | "constrained" };
}

/** One step as the loop hands it over: the step line without its number, which the writer assigns. */
export type TrajectoryStep = Omit<TrajectoryStepLine, "step">;
export type TrajectoryToolCall = TrajectoryStep["toolCalls"][number];

export interface TrajectoryWriter {
  /** Appends one step line at once; a crash afterwards loses nothing already appended. */
  appendStep(step: TrajectoryStep): Promise<void>;
  /** Rewrites the header with the exit, usage and end time, and a repair's final patch (temp file + rename). */
  finish(end: { exit: TrajectoryExit; usage: TrajectoryUsage; endedAt: string; patch?: string }): Promise<void>;
}

/**
 * Writes a loclab trajectory (`TrajectoryHeaderSchema`, `TrajectoryStepSchema` in
 * @loclab/schemas): the header first, saying `running`, then one appended line per step as it
 * happens; at the end the header is rewritten with the exit. Every line is validated against
 * its schema before it is written, so a file this writer produced always reads back; a line
 * that does not fit is a bug in the caller, reported with the field, and nothing is written.
 * Only what it is given is written: the caller never hands it the API key.
 */
export async function openTrajectory(path: string, header: TrajectoryHeader): Promise<TrajectoryWriter> {
  const head = (extra: { exit: TrajectoryExit; usage?: TrajectoryUsage; endedAt?: string; patch?: string }) =>
    formatTrajectoryLine("header", {
      kind: TRAJECTORY_KIND,
      schemaVersion: SCHEMA_VERSION,
      instanceId: header.instanceId,
      outcome: { exit: extra.exit, patch: extra.patch ?? null },
      model: header.model,
      limits: header.limits,
      usage: extra.usage,
      startedAt: header.startedAt,
      endedAt: extra.endedAt,
      provenance: header.provenance,
      decoding: header.decoding,
    });
  const lines: string[] = [];
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${head({ exit: "running" })}\n`, "utf8");
  return {
    async appendStep(step) {
      const line = formatTrajectoryLine("step", { step: lines.length, ...step }, `step ${lines.length}`);
      lines.push(line);
      // Synchronous: one open, write and close (tens of microseconds), where the promise API's
      // round trips cost a tenth of a millisecond per step; once it returns, the line is the
      // kernel's and survives a crash of this process.
      appendFileSync(path, `${line}\n`, "utf8");
    },
    async finish(end) {
      await writeFileAtomic(path, [head(end), ...lines].map((line) => `${line}\n`).join(""));
    },
  };
}
