export * from "./version.js";
export * from "./format-error.js";
export * from "./instance.js";
export * from "./location.js";
export * from "./finding.js";
export * from "./prediction.js";
export * from "./artifact.js";
export * from "./jsonl.js";
