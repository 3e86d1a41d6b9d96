import { appendFile, mkdir, rename, writeFile } from "node:fs/promises";
import type { Provenance } from "@loclab/schemas";
import { dirname } from "node:path";

/** How a loclab run ended, in the trajectory format's words (packages/analysis README). */
export type TrajectoryExit = "submitted" | "step_limit" | "cost_limit" | "time_limit" | "context_limit" | "call_limit" | "format_error" | "error" | "running";

export interface TrajectoryUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  apiCalls: number;
}

/** Header fields (line 1 of `<instance_id>.traj.jsonl`). Times are ISO 8601. */
export interface TrajectoryHeader {
  instanceId: string;
  model: string;
  limits: { steps?: number; seconds?: number };
  startedAt: string;
  /** How the run was made (tool, version, git revision, model config, seed); never the API key. */
  provenance?: Provenance;
}

/** One tool call of a step, with its observation (whose length is the result size). */
export interface TrajectoryToolCall {
  name: string;
  arguments: Record<string, unknown>;
  observation?: string;
  ok?: boolean;
  observedAt?: string;
}

/** One step line; `error` carries harness notes (retries, recoveries, the model error). */
export interface TrajectoryStep {
  output?: string;
  finishReason?: string;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  toolCalls: TrajectoryToolCall[];
  startedAt: string;
  endedAt?: string;
  error?: string;
  /** SHA-256 (hex) of the request's messages. */
  messagesDigest?: string;
  /** Transport failures retried before the answer, as the client recorded them. */
  retries?: { attempt: number; error: string; message: string; waitedMs: number }[];
}

export interface TrajectoryWriter {
  /** Appends one step line at once; a crash afterwards loses nothing already appended. */
  appendStep(step: TrajectoryStep): Promise<void>;
  /** Rewrites the header with the exit, usage and end time (temp file + rename). */
  finish(end: { exit: TrajectoryExit; usage: TrajectoryUsage; endedAt: string }): Promise<void>;
}

/**
 * Writes a loclab trajectory (schemaVersion 1): the header first, saying `running`, then one
 * appended line per step as it happens; at the end the header is rewritten with the exit.
 * Only what it is given is written: the caller never hands it the API key.
 */
export async function openTrajectory(path: string, header: TrajectoryHeader): Promise<TrajectoryWriter> {
  const head = (extra: { exit: TrajectoryExit; usage?: TrajectoryUsage; endedAt?: string }) =>
    JSON.stringify(
      defined({
        kind: "loclab.trajectory",
        schemaVersion: 1,
        instanceId: header.instanceId,
        outcome: { exit: extra.exit, patch: null },
        model: header.model,
        limits: defined(header.limits),
        usage: extra.usage,
        startedAt: header.startedAt,
        endedAt: extra.endedAt,
        provenance: header.provenance,
      }),
    );
  const lines: string[] = [];
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${head({ exit: "running" })}\n`, "utf8");
  return {
    async appendStep(step) {
      const line = JSON.stringify(defined({ step: lines.length, ...step, toolCalls: step.toolCalls.map((call) => defined({ ...call })) }));
      lines.push(line);
      await appendFile(path, `${line}\n`, "utf8");
    },
    async finish(end) {
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, [head(end), ...lines].map((line) => `${line}\n`).join(""), "utf8");
      await rename(temporary, path);
    },
  };
}

function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}
