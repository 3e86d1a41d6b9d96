export * from "./git-objects.js";
export * from "./mirror-fetch.js";
export * from "./mirror-check.js";
export * from "./pre-image-gold.js";
export * from "./base-files.js";
