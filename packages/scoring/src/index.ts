export * from "./function-gold.js";
export * from "./build-gold.js";
export * from "./preset-by-name.js";
export * from "./score-predictions-file.js";
export * from "./peer-outputs.js";
export * from "./leaderboard.js";
export * from "./compare-runs.js";
export * from "./gold-agreement.js";
