export * from "./program.js";
export * from "./gold-report.js";
