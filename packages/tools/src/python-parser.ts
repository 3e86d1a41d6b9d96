import { createRequire } from "node:module";
import { Language, Parser, Query } from "web-tree-sitter";

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
 * The Python grammar of `@vscode/tree-sitter-wasm` (tree-sitter-python 0.25) running in
 * `web-tree-sitter` (the wasm build: the native binding needs a newer libstdc++ than the
 * machines here have). The `.wasm` file is found through Node's module resolution from this
 * package, so it works from `src` and `dist` alike. Loaded once per process; parsing is
 * synchronous, so callers share the parser as long as they use each tree before awaiting.
 *
 * @example (await loadPythonImportParser()).parser.parse("import a").rootNode.type // "module"
 */
export function loadPythonImportParser(): Promise<PythonImportParser> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasm = require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm");
    await Parser.init();
    const language = await Language.load(wasm);
    const parser = new Parser();
    parser.setLanguage(language);
    return { parser, language, imports: new Query(language, IMPORT_QUERY) };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
