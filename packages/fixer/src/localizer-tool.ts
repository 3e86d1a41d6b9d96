import { localizeInstance, type ModelClient, type TrajectoryUsage } from "@loclab/agent";
import type { Location, Provenance } from "@loclab/schemas";
import type { Workspace } from "@loclab/tools";

/**
 * Renders located code for the fixer, within a token budget: FGL's ctx(z). The caller gives it
 * (`renderContext` of @loclab/fgl over the task's checkout, counting with the server's
 * tokenizer), so that the fixer does not depend on the FGL package.
 */
export type RenderLocations = (locations: readonly Location[]) => Promise<{ text: string; tokens: number }>;

export interface LocalizerToolOptions {
  /** The task's repository at base commit on the host (the localizer's read-only tools work there). */
  workspace: Workspace;
  /** The localizer's model (its own endpoint, or the fixer's). */
  client: ModelClient;
  /** Each call's trajectory: `<dir>/<instance_id>.localizer-<n>.traj.jsonl`, linked from the fixer's step. */
  trajectoryDir: string;
  render: RenderLocations;
  /** Most model turns per call (each counted against the shared budget); FGL: 15. */
  maxCalls?: number;
  /** Most locations returned; FGL: 8. */
  maxLocations?: number;
  /** How the localizer's answers are decoded; the fixer's own setting (`free` by default). */
  toolCalls?: "free" | "constrained";
  provenance?: Provenance;
}

/** One call of the localizer tool, as the fixer's result and trajectory record it. */
export interface LocalizerCall {
  /** The tool result the fixer sees: the rendered locations, or why there are none. */
  content: string;
  /** The localizer's model turns: what the shared budget is charged. */
  calls: number;
  usage: TrajectoryUsage;
  /** The localizer's own outcome (`finished`, `budget_exhausted`, …). */
  outcome: string;
  locations: Location[];
  tokens: number;
  trajectoryPath: string;
}

/** What the toolbox calls: one fresh localizer session on the task, within `maxCalls` turns. */
export type LocalizerRunner = (request: {
  instance: { instance_id: string; problem_statement: string };
  /** The fixer's note of what to look for, added to the issue. */
  focus?: string;
  maxCalls: number;
  /** The attempt's time left: the session stops then, as the fixer's supervisor stops everything else. */
  wallMs?: number;
}) => Promise<LocalizerCall>;

/**
 * FGL's two-agent structure, the localizer side: each call runs loclab's localizer in a fresh
 * session on the same task (its own trajectory, its own turn limit, at most the calls the
 * shared budget has left) and answers with its locations rendered as ctx(z) — at most
 * `maxLocations`, within the renderer's token budget.
 */
export function localizerTool(options: LocalizerToolOptions): LocalizerRunner {
  let made = 0;
  return async ({ instance, focus, maxCalls, wallMs }) => {
    made += 1;
    const trajectoryPath = `${options.trajectoryDir}/${instance.instance_id}.localizer-${made}.traj.jsonl`;
    const turns = Math.min(options.maxCalls ?? 15, maxCalls);
    const maxLocations = options.maxLocations ?? 8;
    const result = await localizeInstance({
      instance: {
        instance_id: instance.instance_id,
        problem_statement: focus
          ? `${instance.problem_statement}\n\nThe fixer asks: ${focus}`
          : instance.problem_statement,
      },
      workspace: options.workspace,
      client: options.client,
      trajectoryPath,
      maxTurns: turns,
      maxLocations,
      ...(options.toolCalls ? { toolCalls: options.toolCalls } : {}),
      ...(wallMs !== undefined ? { maxWallMs: Math.max(1, wallMs) } : {}),
      ...(options.provenance ? { provenance: options.provenance } : {}),
    });
    const locations = (result.prediction?.locations ?? []).slice(0, maxLocations);
    const base = { calls: result.turns, usage: result.usage, outcome: result.outcome, trajectoryPath };
    if (locations.length === 0)
      return {
        ...base,
        locations,
        tokens: 0,
        content: `The localizer found no location (its outcome: ${result.outcome}${result.error ? `: ${result.error}` : ""}).`,
      };
    const rendered = await options.render(locations);
    return {
      ...base,
      locations,
      tokens: rendered.tokens,
      content: `The localizer's ${locations.length} location(s), with their code:\n\n${rendered.text}`,
    };
  };
}
