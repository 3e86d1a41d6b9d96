export { ApiError, maxTokensTooLarge, promptTooLong } from "./api-errors.js";
export { renderChatPrompt, type ChatPromptOptions, type RequestMessage } from "./chat-prompt.js";
export {
  LlamaEngine,
  MIN_LOGPROB,
  type EngineOptions,
  type PositionLogprobs,
  type SampleOptions,
  type SampleResult,
} from "./engine.js";
export { checkModelFile, ModelFileError } from "./model-file.js";
export {
  SERVE_VERSION,
  startModelServer,
  type ModelServer,
  type ServeOptions,
  type ServerFingerprint,
} from "./openai-server.js";
export { QueueFullError, SequencePool, type Lease } from "./sequence-pool.js";
export { ServerMetrics } from "./server-metrics.js";
export {
  defaultModelCacheDir,
  ensureTestModel,
  sha256File,
  TEST_MODEL,
  type EnsureTestModelOptions,
  type TestModelFile,
} from "./test-model.js";
export { tokenPieces, type TokenPieces } from "./token-offsets.js";
export {
  dropNullOptionals,
  parseToolAnswer,
  toGrammarSchema,
  toolAnswerSchema,
  toolInstructions,
  type FunctionTool,
  type ToolChoice,
} from "./tool-grammar.js";
