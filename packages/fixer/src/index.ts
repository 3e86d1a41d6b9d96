export { budgetNote, COUNTED_TOOLS, isCounted, UNCOUNTED_TOOLS } from "./call-budget.js";
export {
  ContainerSandbox,
  FIXER_CONTAINER_LABEL,
  removeLeftoverSandboxes,
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
export { FixerToolbox, type FixerToolboxOptions, type FixerToolError, type FixerToolResult } from "./fixer-toolbox.js";
export { ReadWindowError, readWindow, type ReadWindow, type ReadWindowRequest } from "./read-window.js";
export { type CommandResult, type Sandbox, SandboxFileError } from "./sandbox.js";
export { compactionDue, compactMessages, FGL_COMPACTION, type FixerCompaction } from "./compaction.js";
export { fixInstance } from "./fix-instance.js";
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
