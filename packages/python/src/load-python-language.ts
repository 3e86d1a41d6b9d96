import { createRequire } from "node:module";
import { Language, Parser, Query } from "web-tree-sitter";

/** The Python grammar, ready to make parsers and compile queries. */
export interface PythonLanguage {
  language: Language;
  /** A new parser set to Python (tree-sitter parsers are not re-entrant: one per concurrent use). */
  newParser(): Parser;
  /** Compiles a tree-sitter query over the Python grammar. */
  query(source: string): Query;
}

let loading: Promise<PythonLanguage> | undefined;

/**
 * The Python grammar of `@vscode/tree-sitter-wasm` (tree-sitter-python 0.25) in
 * `web-tree-sitter`: the wasm build, because the native binding needs a newer libstdc++ than
 * these machines have (toolchain.md). The `.wasm` is found through Node's module resolution
 * from this package, as an absolute path, so it works from `src` (tests) and `dist` alike.
 * Loaded once per process; a failed load is retried by the next call.
 *
 * @example const python = await loadPythonLanguage(); python.newParser().parse("import a").rootNode.type // "module"
 */
export function loadPythonLanguage(): Promise<PythonLanguage> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasm = require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm");
    await Parser.init();
    const language = await Language.load(wasm);
    return {
      language,
      newParser() {
        const parser = new Parser();
        parser.setLanguage(language);
        return parser;
      },
      query: (source: string) => new Query(language, source),
    };
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
