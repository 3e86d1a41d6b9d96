import type { Language, Parser, Query } from "web-tree-sitter";
import { loadPythonLanguage } from "./load-python-language.js";

/**
 * The two parsers loclab runs over Python sources, both over the one grammar of
 * `loadPythonLanguage`, each made once per process. tree-sitter parsers are not re-entrant:
 * callers share a parser as long as they use each tree before awaiting.
 */

/** A parser and the query that finds import statements: all the import graph needs. */
export interface PythonImportParser {
  parser: Parser;
  language: Language;
  /** Captures `@import` (`import a.b`), `@from` (`from x import y`) and `@future` (`from __future__ import y`). */
  imports: Query;
}

/**
 * A parser and the query repository shuffling runs over every file: imports, attribute
 * chains, scopes and error nodes (`pythonSourceFacts`).
 */
export interface PythonParser {
  parser: Parser;
  language: Language;
  /** `@import`, `@from`, `@root` (the identifier at the start of an attribute chain), `@scope` (function, lambda, class), `@error`. */
  query: Query;
}

const IMPORT_QUERY = `
(import_statement) @import
(import_from_statement) @from
(future_import_statement) @future
`;

const FACTS_QUERY = `
(import_statement) @import
(import_from_statement) @from
(attribute object: (identifier) @root)
(function_definition) @scope
(lambda) @scope
(class_definition) @scope
(ERROR) @error
`;

/** Memoizes a loader; a failed load is retried by the next call. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

/**
 * The import parser, made once per process.
 *
 * @example (await loadPythonImportParser()).parser.parse("import a").rootNode.type // "module"
 */
export const loadPythonImportParser: () => Promise<PythonImportParser> = once(async () => {
  const python = await loadPythonLanguage();
  return { parser: python.newParser(), language: python.language, imports: python.query(IMPORT_QUERY) };
});

/**
 * The shuffling parser, made once per process.
 *
 * @example const python = await loadPythonParser(); python.parser.parse("import a.b").rootNode.type // "module"
 */
export const loadPythonParser: () => Promise<PythonParser> = once(async () => {
  const python = await loadPythonLanguage();
  return { parser: python.newParser(), language: python.language, query: python.query(FACTS_QUERY) };
});
