/**
 * `@loclab/openai-http`: the one OpenAI-compatible HTTP client (chat, completions, `/tokenize`),
 * its retry policy, its error taxonomy and the handling of keys and URL credentials. It imports
 * no other loclab package, so that the agent, the runner and FGL scoring can all stand on it.
 */
export * from "./classify-model-error.js";
export * from "./endpoint.js";
export * from "./model-errors.js";
export * from "./openai-http-client.js";
export * from "./retry-policy.js";
