export * from "./effective-sample-size.js";
export * from "./tempered-softmax.js";
export * from "./solve-temperature.js";
export * from "./anchor-weights.js";
export * from "./task-weights.js";
export * from "./signal-test.js";
export * from "./score-spread.js";
