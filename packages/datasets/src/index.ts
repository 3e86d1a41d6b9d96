export * from "./data-dir.js";
export * from "./registry.js";
export * from "./load-benchmark.js";
export * from "./agentless-classifications.js";
