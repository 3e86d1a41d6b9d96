export * from "./load-python-language.js";
