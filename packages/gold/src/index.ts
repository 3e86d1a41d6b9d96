export * from "./patch-types.js";
export * from "./patch-error.js";
export * from "./parse-patch.js";
export * from "./gold-types.js";
export * from "./symbols.js";
export * from "./gold-from-patch.js";
export * from "./extract-gold.js";
export * from "./summarize-gold.js";
