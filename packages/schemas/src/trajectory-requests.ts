import { createHash } from "node:crypto";
import type { TrajectoryMessage, TrajectoryRequest } from "./trajectory.js";

/**
 * A message with its fields in one fixed order (role, then content and tool calls, or tool call
 * id and content) and no undefined fields: the form that is digested and written, so the digest
 * of a rebuilt request equals the digest taken when it was sent, whatever order the sender's
 * objects had.
 */
export function canonicalMessage(message: TrajectoryMessage): TrajectoryMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls !== undefined
          ? {
              toolCalls: message.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
            }
          : {}),
      };
    case "tool":
      return { role: "tool", toolCallId: message.toolCallId, content: message.content };
  }
}

/** SHA-256 (hex) of a request's messages in canonical form: a step's `messagesDigest`. */
export function messagesDigest(messages: readonly TrajectoryMessage[]): string {
  return createHash("sha256")
    .update(JSON.stringify(messages.map(canonicalMessage)))
    .digest("hex");
}

/**
 * The change from the previous request's messages to this one's (`TrajectoryRequestSchema`):
 * the longest common prefix is kept, the rest added. Pure.
 *
 * @example requestDelta([], [sys, user]) // { keep: 0, add: [sys, user] }
 */
export function requestDelta(
  previous: readonly TrajectoryMessage[],
  current: readonly TrajectoryMessage[],
): Pick<TrajectoryRequest, "keep" | "add"> {
  let keep = 0;
  const limit = Math.min(previous.length, current.length);
  while (
    keep < limit &&
    JSON.stringify(canonicalMessage(previous[keep] as TrajectoryMessage)) ===
      JSON.stringify(canonicalMessage(current[keep] as TrajectoryMessage))
  )
    keep += 1;
  return { keep, add: current.slice(keep).map(canonicalMessage) };
}

/** One rebuilt request: its messages, and whether they hash to the step's recorded digest. */
export interface RebuiltRequest {
  step: number;
  messages: TrajectoryMessage[];
  tools?: string[];
  /** `true`/`false` against the step's `messagesDigest`; `undefined` when the step has none. */
  digestMatches?: boolean;
}

/**
 * Every request of a trajectory, rebuilt from its steps' `request` records (each the previous
 * request's first `keep` messages plus `add`), each checked against the step's digest. Steps
 * without a record (trajectories written before requests were recorded) end the rebuild: a
 * later step cannot be rebuilt without them. Throws when a record keeps more messages than the
 * previous request had (the file is not a trajectory this writer made). Pure.
 */
export function rebuildRequests(
  steps: readonly { step: number; request?: TrajectoryRequest; messagesDigest?: string }[],
): RebuiltRequest[] {
  const rebuilt: RebuiltRequest[] = [];
  let previous: TrajectoryMessage[] = [];
  for (const step of steps) {
    if (!step.request) break;
    if (step.request.keep > previous.length)
      throw new RangeError(
        `step ${step.step}: keeps ${step.request.keep} messages of a request that had ${previous.length}`,
      );
    const messages = [...previous.slice(0, step.request.keep), ...step.request.add];
    rebuilt.push({
      step: step.step,
      messages,
      ...(step.request.tools ? { tools: step.request.tools } : {}),
      ...(step.messagesDigest !== undefined ? { digestMatches: messagesDigest(messages) === step.messagesDigest } : {}),
    });
    previous = messages;
  }
  return rebuilt;
}
