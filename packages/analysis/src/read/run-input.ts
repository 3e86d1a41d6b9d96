import type { RunInput } from "../breakdown/breakdown-run.js";
import { resolvedOf } from "../labels/resolved-labels.js";
import type { RunRead } from "./read-run.js";

/**
 * The breakdown's input for a run read from disk: its summaries and the ids its labels call
 * resolved, among its own tasks and `taskIds`.
 *
 * Errors: the run has no labels (a breakdown would silently count nothing as solved).
 */
export function runInputOf(read: RunRead, options: { taskIds?: readonly string[] } = {}): RunInput {
  const { labels } = read;
  if (!labels)
    throw new Error(
      `no resolved labels for run ${read.name}: none found in ${read.dir}; give them with --resolved ${read.name}=FILE`,
    );
  const ids = new Set([...read.summaries.map((task) => task.instanceId), ...(options.taskIds ?? [])]);
  return {
    name: read.name,
    summaries: read.summaries,
    resolved: new Set([...ids].filter((id) => resolvedOf(labels, id) === true)),
  };
}
