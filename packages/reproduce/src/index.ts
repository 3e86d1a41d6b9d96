/**
 * `@loclab/reproduce`: the stages of `loclab reproduce` as functions a notebook can call. Each
 * loads the bundled data (or builds the fixture), calls the packages that do the work, writes
 * its tables, artifacts and charts to the results folder, and returns the files and the rows
 * it shows; the CLI prints them.
 */
export * from "./stage.js";
export * from "./gold-stage.js";
export * from "./leaderboard-stage.js";
export * from "./significance-stage.js";
export * from "./trajectories-stage.js";
export * from "./localizer-demo-stage.js";
export * from "./real-model-stage.js";
