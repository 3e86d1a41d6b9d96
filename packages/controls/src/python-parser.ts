import { createRequire } from "node:module";
import { Language, Parser, Query } from "web-tree-sitter";

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
 * The Python grammar of `@vscode/tree-sitter-wasm` (tree-sitter-python 0.25) in
 * `web-tree-sitter` (toolchain.md: the native binding needs a newer libstdc++ than this
 * machine has). The `.wasm` is found through Node's resolution from this package, as an
 * absolute path, so it works from `src` (tests) and `dist` alike. Loaded once per process;
 * later calls get the same parser (tree-sitter parsers are not re-entrant: parse one file at
 * a time, as `shuffleRepository` does).
 *
 * @example const python = await loadPythonParser(); python.parser.parse("import a.b").rootNode.type // "module"
 */
export function loadPythonParser(): Promise<PythonParser> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasm = require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm");
    await Parser.init();
    const language = await Language.load(wasm);
    const parser = new Parser();
    parser.setLanguage(language);
    return { parser, language, query: new Query(language, QUERY) };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
