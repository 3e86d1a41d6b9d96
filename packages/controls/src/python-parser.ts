import { loadPythonLanguage } from "@loclab/python";
import type { Language, Parser, Query } from "web-tree-sitter";

/**
 * A tree-sitter parser for Python with the queries repository shuffling runs over every
 * file: imports, attribute chains, scopes and error nodes.
 */
export interface PythonParser {
  parser: Parser;
  language: Language;
  /** `@import`, `@from`, `@root` (the identifier at the start of an attribute chain), `@scope` (function, lambda, class), `@error`. */
  query: Query;
}

const QUERY = `
(import_statement) @import
(import_from_statement) @from
(attribute object: (identifier) @root)
(function_definition) @scope
(lambda) @scope
(class_definition) @scope
(ERROR) @error
`;

let loading: Promise<PythonParser> | undefined;

/**
 * A parser and the shuffling query over the shared Python grammar (`@loclab/python`), made
 * once per process (tree-sitter parsers are not re-entrant: parse one file at a time, as
 * `shuffleRepository` does).
 *
 * @example const python = await loadPythonParser(); python.parser.parse("import a.b").rootNode.type // "module"
 */
export function loadPythonParser(): Promise<PythonParser> {
  loading ??= loadPythonLanguage()
    .then((python) => ({ parser: python.newParser(), language: python.language, query: python.query(QUERY) }))
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
