// Worker thread of the import-parse pool (import-parse-pool.ts): parses each batch of Python
// sources it is sent with its own tree-sitter parser (the same grammar and query as the
// calling thread's) and posts back every file's imports, or why one could not be parsed. A
// grammar that does not load fails the thread (the caller then parses its files itself).
import { servePoolRequests } from "@loclab/threads";
import type { ParsedSource } from "./import-parse-pool.js";
import { pythonImports } from "./python-imports.js";
import { loadPythonImportParser } from "./python-parsers.js";

servePoolRequests(loadPythonImportParser, (sources: string[], parser): ParsedSource[] =>
  sources.map((source) => {
    try {
      return pythonImports(source, parser);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }),
);
