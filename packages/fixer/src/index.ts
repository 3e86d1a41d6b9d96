export { budgetNote, COUNTED_TOOLS, isCounted, UNCOUNTED_TOOLS } from "./call-budget.js";
export {
  ContainerSandbox,
  FIXER_CONTAINER_LABEL,
  removeLeftoverSandboxes,
  sandboxHostConfig,
  SandboxStartError,
  type ContainerSandboxOptions,
} from "./container-sandbox.js";
export { cutOutput, type CutOutput } from "./cut-output.js";
export { replaceExact, type ExactEdit } from "./exact-edit.js";
export { FGL_SINGLE_AGENT, FGL_TWO_AGENTS, type FixerLimits } from "./fixer-limits.js";
export {
  FIXER_TOOL_DESCRIPTIONS,
  FIXER_TOOL_SCHEMAS,
  FIXER_TOOLS,
  SINGLE_AGENT_TOOLS,
  fixerToolDefinitions,
  type FixerToolDefinition,
  type FixerTool,
} from "./fixer-tool-schemas.js";
export {
  FixerToolbox,
  type FixerToolboxOptions,
  type FixerToolError,
  type FixerToolResult,
  type PatchOverLimit,
} from "./fixer-toolbox.js";
export {
  ReadWindowError,
  readWindow,
  windowBytes,
  type FileSlice,
  type ReadWindow,
  type ReadWindowRequest,
} from "./read-window.js";
export {
  type CommandResult,
  type FileLines,
  READ_FILE_MAX_BYTES,
  type Sandbox,
  type SandboxDiff,
  SandboxFileError,
} from "./sandbox.js";
export {
  DEFAULT_PATCH_LIMITS,
  DEFAULT_SANDBOX_LIMITS,
  DISK_POLL_MS,
  diskLimitNote,
  leftoverNote,
  limitNotes,
  patchOverLimitNote,
  type PatchLimits,
  type SandboxLimits,
} from "./sandbox-limits.js";
export { countersSince, parseSweep, SWEEP_SCRIPT, type SandboxCounters, type SweepReading } from "./sandbox-sweep.js";
export { RUN_SCRIPT } from "./sandbox-scripts.js";
export { compactionDue, compactMessages, FGL_COMPACTION, type FixerCompaction } from "./compaction.js";
export { fixInstance } from "./fix-instance.js";
export { finalPatch, type FinalPatch } from "./final-patch.js";
export type {
  FixerCompactionRecord,
  FixerExit,
  FixerLoopCandidate,
  FixerRecovery,
  FixInstanceOptions,
  FixResult,
} from "./fix-instance-types.js";
export { FIXER_PROMPTS_DIR, readFixerPrompt, type FixerPromptName } from "./fixer-prompts.js";
export {
  localizerTool,
  type LocalizerCall,
  type LocalizerRunner,
  type LocalizerToolOptions,
  type RenderLocations,
} from "./localizer-tool.js";
