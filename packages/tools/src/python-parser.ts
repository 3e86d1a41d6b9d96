import { loadPythonLanguage } from "@loclab/python";
import type { Language, Parser, Query } from "web-tree-sitter";

/** A tree-sitter parser for Python and the query that finds its import statements. */
export interface PythonImportParser {
  parser: Parser;
  language: Language;
  /** Captures `@import` (`import a.b`), `@from` (`from x import y`) and `@future` (`from __future__ import y`). */
  imports: Query;
}

const IMPORT_QUERY = `
(import_statement) @import
(import_from_statement) @from
(future_import_statement) @future
`;

let loading: Promise<PythonImportParser> | undefined;

/**
 * A parser and the import query over the shared Python grammar (`@loclab/python`), made once
 * per process; parsing is synchronous, so callers share the parser as long as they use each
 * tree before awaiting.
 *
 * @example (await loadPythonImportParser()).parser.parse("import a").rootNode.type // "module"
 */
export function loadPythonImportParser(): Promise<PythonImportParser> {
  loading ??= loadPythonLanguage()
    .then((python) => ({ parser: python.newParser(), language: python.language, imports: python.query(IMPORT_QUERY) }))
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
