import type { TaskSummary } from "../src/index.js";

/**
 * A hand-made task summary for rule and table tests: one submitted step with a patch and no
 * tool calls, no times or tokens; each test overrides only the fields its counts depend on.
 */
export function taskSummary(overrides: Partial<TaskSummary> = {}): TaskSummary {
  return {
    instanceId: "django__django-1",
    format: "loclab",
    source: "",
    exitStatus: "submitted",
    hasPatch: true,
    steps: 1,
    outputs: 1,
    toolCalls: {},
    failedCalls: {},
    noFileObservations: 0,
    loopCandidates: [],
    paths: [],
    createdPaths: [],
    pathsTruncated: false,
    seconds: null,
    promptTokens: null,
    completionTokens: null,
    costUsd: null,
    apiCalls: null,
    limits: {},
    rounds: null,
    ...overrides,
  };
}
