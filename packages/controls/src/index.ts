export * from "./mask-types.js";
export * from "./known-files.js";
export * from "./mask-issue-paths.js";
export * from "./mulberry32.js";
export * from "./mismatch-pairing.js";
export * from "./gold-mentions.js";
export * from "./mask-benchmark.js";
